// A device profile (qemu/profiles/*.yaml): how long the emulated chip takes and what timing it
// demands of the driver. Loading reports malformed files as "file:line:col: what was expected".
#pragma once

#include "device/i2c_bus_clock.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::device {

// The timing requirements a profile may state. Each model checks some of them (device_models.h)
// and counts a broken one as a violation; what the chip then does is the model's (the Nuvoton
// one NACKs).
enum class Requirement {
    // No access of any register sooner than this after a write to TPM_STS.
    min_status_gap,
    // While a command executes, TPM_STS reads at least this far apart (the GO write counts as
    // the first access).
    min_poll_interval,
    // After a TPM_STS read that found a requested commandReady not shown yet, the next TPM_STS
    // read no sooner than this (a TPM_STS write starts over): the wait of a driver that polls
    // for the chip to get ready.
    min_ready_poll_interval,
    // A device file's chip (table_device.h): after a write that made it busy (a rule's `busy`),
    // no access sooner than this: the idle time a datasheet asks for after a write cycle.
    min_write_idle,
    // After a write of commandReady to TPM_STS, no TPM_STS access sooner than this: a chip that
    // clears its buffers first (cr50_strict_timing).
    min_ready_write_gap,
};

struct TimingRequirements {
    std::optional<Duration> min_status_gap;
    std::optional<Duration> min_poll_interval;
    std::optional<Duration> min_ready_poll_interval;
    std::optional<Duration> min_write_idle;
    std::optional<Duration> min_ready_write_gap;

    const std::optional<Duration>& get(Requirement requirement) const;
};

struct RequirementInfo {
    Requirement requirement;
    const char* name;        // "min_status_gap": reports
    const char* profile_key; // "min_status_gap_us": profiles
    const char* counter;     // "status_gap_violations": ksweep-tpmd's stats
    std::optional<Duration> TimingRequirements::*value;
};

std::span<const RequirementInfo> requirement_table();
const RequirementInfo& requirement_info(Requirement requirement);

// The requirements a profile states, in the table's order.
std::vector<Requirement> stated_requirements(const TimingRequirements& requirements);

// A named delay of a device file's chip (`delays` in a profile): the typical time and its
// spread; each use takes a time uniformly from typical - spread to typical + spread.
struct DelaySpec {
    Duration typical{};
    Duration spread{};
};

struct DeviceProfile {
    std::string name;
    std::string description;
    Duration default_command_time{};
    std::map<uint32_t, Duration> command_time; // by TPM command code
    Duration command_ready_time{};             // TPM_STS.commandReady after it is requested
    Duration bus_byte_time{};                  // wire time of one I2C byte
    uint8_t burst_count = 32;                  // FIFO bytes per burst the chip advertises
    // A chip with an interrupt line (cr50) pulses it this long after a write it received.
    Duration interrupt_delay{};
    // Switches that make a cr50 driver take its polling paths (docs/cr50.md):
    Duration locality_grant_time{};       // TPM_ACCESS.activeLocality after a request
    bool access_request_pending = false;  // TPM_ACCESS shows another locality's request
    Duration busy_after_fifo_write{};     // every message NACKed this long after a FIFO write
    Duration no_burst_after_fifo_write{}; // burst count 0 this long after a FIFO write
    TimingRequirements requirements;
    // A device file's chip: its delays by the names its rules use, and the seed of their
    // spread (the same sequence in every boot, so baseline and patched meet the same chip).
    std::map<std::string, DelaySpec> delays;
    uint64_t seed = 1;
    std::string source_path;

    Duration execution_time(uint32_t command_code) const;
};

struct ProfileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

DeviceProfile load_device_profile(const std::string& path);
DeviceProfile parse_device_profile(const std::string& yaml_text, const std::string& path);

// TPM command codes by name for the commands profiles name: TPM 2.0 ("TPM2_PCR_Extend" ->
// 0x182) and TPM 1.2 ordinals ("TPM_Extend" -> 0x14); the two ranges do not overlap.
std::optional<uint32_t> tpm_command_code(const std::string& name);
std::string tpm_command_name(uint32_t code); // "TPM2_PCR_Extend", or "0x00000182"

} // namespace ksweep::device
