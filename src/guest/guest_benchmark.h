// The whole guest benchmark for one device of the registry (qemu/devices.yaml): build the guest
// kernel from the tree under test at the asked HZ (guest_build.h, cached), build the entry's
// modules from the driver's sources against that build (cached), and for a boot with the chip's
// interrupt line the module that binds it (qemu/bind/), assemble the initramfs (cached), boot
// once with the emulated TPM, summarise the per-extend times.
// `ksweep guest` is a thin shell around it; `ksweep validate` L4 runs it per variant.
#pragma once

#include "device/device_registry.h"
#include "guest/guest_build.h"
#include "guest/guest_stats.h"
#include "guest/module_build.h"
#include "guest/qemu_runner.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::guest {

// Where the kernel pieces are: process environment first, then the file scripts/setup.sh
// writes (<cache>/env, cache = $KSWEEP_CACHE or ~/.cache/ksweep).
struct GuestEnvironment {
    std::string cache_dir;
    std::string tree;        // KSWEEP_TREE_6_1: the tree booted when none is given
    std::string headers_dir; // KSWEEP_HEADERS: Debian's prepared headers of that tree

    // Throws std::runtime_error saying which value is missing and how to get it.
    static GuestEnvironment load();
};

// The device registry ksweep ships (qemu/devices.yaml). Throws device::RegistryError.
device::DeviceRegistry load_registry();
std::string registry_path();

struct GuestBenchmarkOptions {
    std::string device = "tpm_i2c_nuvoton"; // the registry entry to boot
    // The tree whose kernel the guest runs (built with guest_build.h); default: the setup's tree.
    std::string tree;
    int hz = 250; // the guest kernel's HZ
    // The tree (or a snapshot with its layout) whose copy of the entry's directory holds the
    // driver's sources: baseline or patched; default: the setup's tree.
    std::string driver_root;
    // A file used instead of the tree's file of the same name (a historical or edited copy).
    std::string driver_source;
    // Where its "private" headers are when they are not beside it, before the tree's directory.
    std::vector<std::string> driver_include_dirs;
    std::uint32_t extends = 10;
    std::string profile; // default: the registry entry's
    // The chip's interrupt line: wired to the driver or not; default: the registry entry's
    // bind.interrupt (what boards do).
    std::optional<device::InterruptMode> interrupt;
    std::chrono::seconds timeout{0}; // 0: a budget scaled to `extends`
    std::string run_dir;             // required
    bool trace = false;              // keep an I2C message trace in run_dir (GuestRunOptions)
    std::function<void(const std::string&)> on_progress;
};

struct GuestBenchmarkResult {
    bool ok = false;                 // built, booted, every extend succeeded, PCR matches
    std::string error;               // set when it did not get as far as a boot
    bool guest_build_failed = false; // `error` is the guest kernel's build (GuestBuildError)
    device::DeviceEntry device;      // the registry entry that was booted
    device::InterruptMode interrupt = device::InterruptMode::none; // how its line was wired
    std::vector<std::string> driver_sources; // what its modules were built from
    GuestBuild guest;                        // the kernel booted: its build dir, release, HZ
    ModuleBuildResult driver_build;
    GuestRunResult run;
    ExtendSummary summary;
};

// ksweep's own helper executables, found beside the ksweep binary's build.
std::string tpmd_executable();
std::string extend_executable();
std::string op_executable();

// Everything up to the boot: the modules built, the initramfs assembled, the kernel image found;
// returns the boot's options, or nullopt with result.error (and the builds) set. The LAVA
// export (validate/lava_export.h) ships what it names instead of booting it here.
std::optional<GuestRunOptions> prepare_guest_run(const GuestBenchmarkOptions& options,
                                                 GuestBenchmarkResult& result);

GuestBenchmarkResult run_guest_benchmark(const GuestBenchmarkOptions& options);

} // namespace ksweep::guest
