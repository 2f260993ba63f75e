// SHA-256 through OpenSSL's libcrypto, for content-keyed caches, and the PCR banks' hashes
// (SHA-1, SHA-256) for the PCR hash chains.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep {

using Sha256Digest = std::array<std::uint8_t, 32>;
using Bytes = std::vector<std::uint8_t>;

// Incremental hashing with the algorithm OpenSSL calls `name` ("sha1", "sha256"); throws
// std::invalid_argument for a name it does not know.
class Digest {
  public:
    explicit Digest(const std::string& name);
    ~Digest();
    Digest(const Digest&) = delete;
    Digest& operator=(const Digest&) = delete;

    void update(std::string_view bytes);
    Bytes finish();

  private:
    struct Context;
    Context* context_;
};

// SHA-256, for cache keys built from many files.
class Sha256 : private Digest {
  public:
    Sha256() : Digest("sha256") {}
    using Digest::update;
    void update(const Sha256Digest& digest);
    Sha256Digest finish();
};

Sha256Digest sha256(std::string_view bytes);

// `bytes` hashed with the algorithm OpenSSL calls `name` ("sha1", "sha256"); throws
// std::invalid_argument for a name it does not know.
Bytes digest_bytes(const std::string& name, std::span<const std::uint8_t> bytes);

std::string to_hex(std::span<const std::uint8_t> bytes);
// An even number of hex digits (either case); nullopt otherwise.
std::optional<Bytes> bytes_from_hex(std::string_view hex);

} // namespace ksweep
