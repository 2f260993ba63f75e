// L4: drivers that have an emulated device boot in QEMU, baseline and patched alternately,
// and are timed, PCR-checked and held to the device profile's timing requirements.
#pragma once

#include "validate/levels_module_build.h"
#include "validate/validate_report.h"

#include <functional>
#include <string>
#include <vector>

namespace ksweep::validate {

// A driver ksweep can boot against an emulated device: the registry grows one entry per model.
struct DeviceModel {
    const char* driver;       // module name, "tpm_i2c_nuvoton"
    const char* profile;      // default profile, relative to the source dir (qemu/profiles/...)
    const char* guest_device; // what the guest instantiates: "tpm2_i2c_nuvoton at 0x2e"
};

const DeviceModel* find_device_model(const std::string& driver);
const std::vector<DeviceModel>& device_models();

// "status_gap_violations" in ksweep-tpmd's stats JSON -> "min_status_gap": the profile's
// requirement each counter checks. Counters that are zero are left out.
std::map<std::string, unsigned long long> requirement_violations(const std::string& stats_json);

// The requirements a profile states, name -> "6000 us" (empty when it has none or cannot be
// read; the run itself reports an unreadable profile).
std::map<std::string, std::string> profile_requirements(const std::string& profile_path);

struct DeviceRunOptions {
    int boots = 2; // per variant
    std::uint32_t extends = 200;
    std::string profile;  // "" = the model's default
    std::string work_dir; // sources and run directories go below it
    std::function<void(const std::string&)> on_progress;
};

// Sets `level` from a summarized run (summarize_device_run): failed for a broken requirement,
// a failed boot or PCR check, or a slowdown (is_slowdown: the median ratio's confidence interval
// entirely above 1 + kSlowdownTolerance); passed otherwise. Both messages carry the median ratio
// with its interval and Mann-Whitney p-value.
void judge_device_run(const DeviceRun& run, LevelResult& level);

// Boots baseline, patched, baseline, patched... (`boots` of each) with the module's sources as
// snapshotted; fills a DeviceRun with every sample, violations and the summaries, and sets
// `level` (passed, or failed with the reason: a failed boot, a PCR mismatch, a broken
// requirement (which, how often, which variant) or a slowdown).
DeviceRun run_device_level(const DeviceModel& model, const kbuild::KbuildModule& module,
                           const SourceSnapshot& baseline, const SourceSnapshot& patched,
                           const DeviceRunOptions& options, LevelResult& level);

} // namespace ksweep::validate
