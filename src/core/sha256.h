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

// Incremental hashing, for cache keys built from many files.
class Sha256 {
  public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    void update(std::string_view bytes);
    void update(const Sha256Digest& digest);
    Sha256Digest finish();

  private:
    struct Context;
    Context* context_;
};

Sha256Digest sha256(std::string_view bytes);

using Bytes = std::vector<std::uint8_t>;

// `bytes` hashed with the algorithm OpenSSL calls `name` ("sha1", "sha256"); throws
// std::invalid_argument for a name it does not know.
Bytes digest_bytes(const std::string& name, std::span<const std::uint8_t> bytes);

std::string to_hex(std::span<const std::uint8_t> bytes);
// An even number of hex digits (either case); nullopt otherwise.
std::optional<Bytes> bytes_from_hex(std::string_view hex);

} // namespace ksweep
