// The counters ksweep-tpmd writes to its --stats file (JSON) that say whether the driver
// treated the device right: timing-requirement violations, NACKs, protocol errors. A TPM's
// stats count commands, a device file's chip's messages; both name the same violations.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace ksweep::guest {

struct DeviceCounters {
    long commands = 0;
    long extends = 0;    // benchmark commands (TPM2_PCR_Extend, TPM_Extend) the chip executed
    long violations = 0; // accesses that broke the profile's timing requirements
    long nacks = 0;
    long protocol_errors = 0; // register accesses the chip's protocol does not allow
    long malformed_requests = 0;
    // Every counter of the stats object by its name, those above and the per-requirement ones
    // ("status_gap_violations") L4 holds a profile to.
    std::map<std::string, long> counters;

    long counter(const std::string& name) const; // 0 when the stats have no such counter
    // "0 timing violations, 0 NACKs, 0 protocol errors, 0 malformed requests"
    std::string summary() const;
};

// nullopt if the text is not the stats object (the back end died before writing it). The one
// reader of the stats file: the runner parses it once, L4 reads the counters from here.
// `benchmark_command` is what `extends` counts.
std::optional<DeviceCounters> parse_device_stats(const std::string& json,
                                                 const std::string& benchmark_command);

} // namespace ksweep::guest
