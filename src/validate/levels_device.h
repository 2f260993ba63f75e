// L4: drivers that have an emulated device boot in QEMU, baseline and patched alternately,
// and are timed, PCR-checked and held to the device profile's timing requirements.
// Which patches boot which device comes from the device registry (qemu/devices.yaml, read through
// guest::load_registry()): a patch to any module an entry loads boots that entry.
#pragma once

#include "device/device_registry.h"
#include "guest/guest_device_stats.h"
#include "validate/lava_export.h"
#include "validate/lava_results.h"
#include "validate/levels_module_build.h"
#include "validate/validate_report.h"

#include <functional>
#include <string>
#include <vector>

namespace ksweep::validate {

// "status_gap_violations" in ksweep-tpmd's stats JSON -> "min_status_gap": the profile's
// requirement each counter checks. Counters that are zero are left out.
std::map<std::string, unsigned long long>
requirement_violations(const guest::DeviceCounters& device);

// The requirements a profile states, name -> "6000 us" (empty when it has none or cannot be
// read; the run itself reports an unreadable profile).
std::map<std::string, std::string> profile_requirements(const std::string& profile_path);

struct DeviceRunOptions {
    std::string tree; // the guest kernel is built from it (guest_build.h); "": the setup's tree
    int hz = 250;     // that kernel's HZ
    int boots = 2;    // per variant
    std::uint32_t extends = 200;
    std::string profile; // "" = the model's default
    // How the chip's interrupt line is wired (a device without one: none).
    device::InterruptMode interrupt = device::InterruptMode::none;
    std::string work_dir; // sources and run directories go below it
    // LAVA instead of local boots: write one job per boot, or take each boot from the
    // results; lava_key holds the series, patch and HZ, the run fills in the rest.
    LavaExport* lava_export = nullptr;
    const LavaResults* lava_results = nullptr;
    LavaBootKey lava_key;
    std::function<void(const std::string&)> on_progress;
};

// Sets `level` from a summarized run (summarize_device_run): failed for a broken requirement,
// a failed boot or PCR check, or a slowdown (is_slowdown: the median ratio's confidence interval
// entirely above 1 + kSlowdownTolerance); passed otherwise. Both messages carry the median ratio
// with its interval and Mann-Whitney p-value.
void judge_device_run(const DeviceRun& run, LevelResult& level);

// The wirings L4 boots `device` with: `asked` (validate --interrupt) for a device with an
// interrupt line, its registry wiring when nothing was asked; none for a device without one.
std::vector<device::InterruptMode> interrupt_modes(const device::DeviceEntry& device,
                                                   const std::vector<device::InterruptMode>& asked);

// Builds (or finds) the guest kernel of `tree` at `hz` once, then boots baseline, patched,
// baseline, patched... (`boots` of each) with the device's modules built from the snapshots
// (taken of the patch's module directory, which holds the entry's modules) against that kernel's
// build; fills a DeviceRun with every sample, violations and the summaries, and sets `level`
// (passed, or failed with the reason: a failed boot, a PCR mismatch, a broken requirement
// (which, how often, which variant) or a slowdown). A guest kernel or module build that fails
// fails the level once with its error lines and log, and boots nothing more.
DeviceRun run_device_level(const device::DeviceEntry& device, const SourceSnapshot& baseline,
                           const SourceSnapshot& patched, const DeviceRunOptions& options,
                           LevelResult& level);

} // namespace ksweep::validate
