// The host side of the extend benchmark's proof: rebuild the digests the guest program
// (qemu/extend/tpm_extend.c) extended into PCR 16 and the PCR value they must produce, in the
// bank the device registry names (SHA-256 for TPM 2.0, SHA-1 for TPM 1.2).
#pragma once

#include "core/sha256.h"

#include <cstdint>
#include <string>

namespace ksweep::guest {

// The digest size of a PCR bank ("sha1" -> 20, "sha256" -> 32); throws for another name.
size_t pcr_digest_size(const std::string& bank);

// Digest number i as tpm_extend.c builds it, `size` bytes: i big-endian in the first four
// bytes, then 0xa5 ^ j for byte j. Keep the two in step.
Bytes extend_digest(std::uint32_t i, size_t size);

// PCR after extending digests 0..count-1 into `initial`: pcr = H(pcr || digest_i).
Bytes expected_pcr(const std::string& bank, const Bytes& initial, std::uint32_t count);

struct PcrCheck {
    bool passed = false;
    bool started_from_zero = false; // the guest's PCR reset worked
    Bytes expected, actual;
    std::string message; // one line, for the user
};

// Compare the guest's final PCR with the chain over `extends` successful extends.
PcrCheck check_pcr(const std::string& bank, const Bytes& initial, const Bytes& final_value,
                   std::uint32_t extends);

} // namespace ksweep::guest
