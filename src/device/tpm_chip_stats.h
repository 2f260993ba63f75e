// What an emulated chip saw during a run: the numbers the validation report quotes and the
// timing requirements the driver broke.
#pragma once

#include "device/device_profile.h"
#include "device/ivshmem_doorbell.h"

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

namespace ksweep::device {

struct TpmChipStats {
    uint64_t commands = 0;
    std::map<uint32_t, uint64_t> commands_by_code;
    uint64_t aborts = 0;           // commandReady written while a command was in flight
    uint64_t response_retries = 0; // responseRetry written
    uint64_t status_reads = 0;
    uint64_t busy_status_reads = 0; // TPM_STS reads while a command was still executing
    uint64_t nacks = 0;             // messages the chip refused (Nuvoton: requirement violations)
    uint64_t protocol_errors = 0;   // accesses that make no sense in the current state
    uint64_t status_gap_violations = 0;
    uint64_t poll_interval_violations = 0;
    uint64_t ready_poll_violations = 0;
    uint64_t ready_write_gap_violations = 0;

    uint64_t violations_of(Requirement requirement) const;
    uint64_t violations() const {
        return status_gap_violations + poll_interval_violations + ready_poll_violations +
               ready_write_gap_violations;
    }
};

// Counters of the transport, reported beside the chip's.
struct TransportStats {
    uint64_t requests = 0;
    uint64_t malformed = 0;
    uint64_t kicks = 0;
    // Wall time spent serving requests (bus time of the profile included): what the back end
    // adds to each transfer the guest sees.
    uint64_t service_ns_total = 0;
    uint64_t service_ns_max = 0;
};

// The transport's counters every model's stats JSON carries, in this order: virtio_requests,
// malformed_requests, kicks.
void add_transport_json(nlohmann::ordered_json& stats, const TransportStats& x);

// One line for the log: "stats: commands=... violations=...". `checked` are the requirements
// the model enforces: their violation counters are listed, in that order. `interrupts`: the
// chip's interrupt line's counters, when it was wired.
std::string format_stats_line(const TpmChipStats& t, const TransportStats& x,
                              std::span<const Requirement> checked,
                              const InterruptStats* interrupts = nullptr);
// A JSON object with every counter, for the runner to read after the run.
std::string format_stats_json(const std::string& profile, const TpmChipStats& t,
                              const TransportStats& x, std::span<const Requirement> checked,
                              const InterruptStats* interrupts = nullptr);

} // namespace ksweep::device
