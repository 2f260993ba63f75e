// The host side of the extend benchmark's proof: rebuild the digests the guest program
// (qemu/extend/tpm_extend.c) extended into PCR 16 and the PCR value they must produce.
#pragma once

#include "core/sha256.h"

#include <cstdint>
#include <string>

namespace ksweep::guest {

// Digest number i as tpm_extend.c builds it: i big-endian in the first four bytes, then
// 0xa5 ^ j for byte j. Keep the two in step.
Sha256Digest extend_digest(std::uint32_t i);

// PCR after extending digests 0..count-1 into `initial`: pcr = SHA-256(pcr || digest_i).
Sha256Digest expected_pcr(const Sha256Digest& initial, std::uint32_t count);

struct PcrCheck {
    bool passed = false;
    bool started_from_zero = false; // the guest's PCR_Reset worked
    Sha256Digest expected{};
    Sha256Digest actual{};
    std::string message; // one line, for the user
};

// Compare the guest's final PCR with the chain over `extends` successful extends.
PcrCheck check_pcr(const Sha256Digest& initial, const Sha256Digest& final_value,
                   std::uint32_t extends);

} // namespace ksweep::guest
