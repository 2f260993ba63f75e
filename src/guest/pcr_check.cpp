#include "guest/pcr_check.h"

#include <algorithm>
#include <stdexcept>

namespace ksweep::guest {

size_t pcr_digest_size(const std::string& bank) {
    if (bank == "sha1")
        return 20;
    if (bank == "sha256")
        return 32;
    throw std::invalid_argument("unknown PCR bank '" + bank + "'");
}

Bytes extend_digest(std::uint32_t i, size_t size) {
    Bytes digest(size);
    digest[0] = static_cast<std::uint8_t>(i >> 24);
    digest[1] = static_cast<std::uint8_t>(i >> 16);
    digest[2] = static_cast<std::uint8_t>(i >> 8);
    digest[3] = static_cast<std::uint8_t>(i);
    for (size_t j = 4; j < digest.size(); ++j)
        digest[j] = static_cast<std::uint8_t>(0xa5 ^ j);
    return digest;
}

Bytes expected_pcr(const std::string& bank, const Bytes& initial, std::uint32_t count) {
    size_t size = pcr_digest_size(bank);
    Bytes pcr = initial;
    for (std::uint32_t i = 0; i < count; ++i) {
        Bytes both = pcr;
        Bytes digest = extend_digest(i, size);
        both.insert(both.end(), digest.begin(), digest.end());
        pcr = digest_bytes(bank, both);
    }
    return pcr;
}

PcrCheck check_pcr(const std::string& bank, const Bytes& initial, const Bytes& final_value,
                   std::uint32_t extends) {
    PcrCheck check;
    check.started_from_zero =
        std::all_of(initial.begin(), initial.end(), [](std::uint8_t b) { return b == 0; });
    check.expected = expected_pcr(bank, initial, extends);
    check.actual = final_value;
    check.passed = check.expected == check.actual;
    check.message =
        check.passed
            ? "PCR 16 matches the host's hash chain over " + std::to_string(extends) + " extends"
            : "PCR 16 mismatch after " + std::to_string(extends) + " extends: guest " +
                  to_hex(final_value) + ", host expects " + to_hex(check.expected);
    return check;
}

} // namespace ksweep::guest
