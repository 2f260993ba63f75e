// SHA-256 through OpenSSL's libcrypto, for the PCR hash chain and content-keyed caches.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

std::string to_hex(const Sha256Digest& digest);
// Exactly 64 hex digits (either case); nullopt otherwise.
std::optional<Sha256Digest> digest_from_hex(std::string_view hex);

} // namespace ksweep
