// A device profile (qemu/profiles/*.yaml): how long the emulated chip takes and what timing it
// demands of the driver. Loading reports malformed files as "file:line:col: what was expected".
#pragma once

#include "device/i2c_bus_clock.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace ksweep::device {

// Timing the chip needs; an access that breaks one is NACKed and counted as a violation.
struct TimingRequirements {
    // No access of any register sooner than this after a write to TPM_STS.
    std::optional<Duration> min_status_gap;
    // While a command executes, TPM_STS reads at least this far apart (the GO write counts as
    // the first access).
    std::optional<Duration> min_poll_interval;
};

struct DeviceProfile {
    std::string name;
    std::string description;
    Duration default_command_time{};
    std::map<uint32_t, Duration> command_time; // by TPM command code
    Duration command_ready_time{};             // TPM_STS.commandReady after it is requested
    Duration bus_byte_time{};                  // wire time of one I2C byte
    uint8_t burst_count = 32;                  // FIFO bytes per burst the chip advertises
    TimingRequirements requirements;
    std::string source_path;

    Duration execution_time(uint32_t command_code) const;
};

struct ProfileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

DeviceProfile load_device_profile(const std::string& path);
DeviceProfile parse_device_profile(const std::string& yaml_text, const std::string& path);

// TPM 2.0 command codes by name ("TPM2_PCR_Extend" -> 0x182) for the commands profiles name.
std::optional<uint32_t> tpm2_command_code(const std::string& name);
std::string tpm2_command_name(uint32_t code); // "TPM2_PCR_Extend", or "0x00000182"

} // namespace ksweep::device
