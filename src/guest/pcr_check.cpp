#include "guest/pcr_check.h"

#include <algorithm>

namespace ksweep::guest {

Sha256Digest extend_digest(std::uint32_t i) {
    Sha256Digest digest{};
    digest[0] = static_cast<std::uint8_t>(i >> 24);
    digest[1] = static_cast<std::uint8_t>(i >> 16);
    digest[2] = static_cast<std::uint8_t>(i >> 8);
    digest[3] = static_cast<std::uint8_t>(i);
    for (size_t j = 4; j < digest.size(); ++j)
        digest[j] = static_cast<std::uint8_t>(0xa5 ^ j);
    return digest;
}

Sha256Digest expected_pcr(const Sha256Digest& initial, std::uint32_t count) {
    Sha256Digest pcr = initial;
    for (std::uint32_t i = 0; i < count; ++i) {
        Sha256 hash;
        hash.update(pcr);
        hash.update(extend_digest(i));
        pcr = hash.finish();
    }
    return pcr;
}

PcrCheck check_pcr(const Sha256Digest& initial, const Sha256Digest& final_value,
                   std::uint32_t extends) {
    PcrCheck check;
    check.started_from_zero =
        std::all_of(initial.begin(), initial.end(), [](std::uint8_t b) { return b == 0; });
    check.expected = expected_pcr(initial, extends);
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
