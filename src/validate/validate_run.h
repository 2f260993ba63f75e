// `ksweep validate`: every patch of a series through L1 (git am), L2 (checkpatch.pl --strict),
// L3 (module builds, baseline and patched) and L4 (QEMU with an emulated device), then the
// report files. The user's tree is only read: patches are applied in a scratch clone.
#pragma once

#include "device/device_registry.h"
#include "validate/validate_report.h"

#include <functional>
#include <string>
#include <vector>

namespace ksweep::validate {

struct ValidateOptions {
    std::string tree;
    std::string series_dir; // one of series_dir / git_range
    std::string git_range;  // "A..B" in the tree's repository
    std::vector<int> levels{1, 2, 3, 4};
    int boots = 2;               // per variant, L4
    std::uint32_t extends = 200; // per boot, L4
    std::string profile;         // device profile override
    // L4: the guest kernels' HZ, each its own build of the tree (the L4 matrix); empty: the build
    // dir's CONFIG_HZ, else 250, and the report says which.
    std::vector<int> hz;
    // L4: how the interrupt line of a device that has one is wired, each its own row (wired, none);
    // empty: as the device registry says boards wire it.
    std::vector<device::InterruptMode> interrupts;
    // L4: the whole tree the guest kernel is built from; default: `tree`. A sparse checkout of
    // the series' base (what the tests validate) cannot be built: give the tree it came from.
    std::string guest_tree;
    std::string headers_dir;    // the tree's build dir; default: resolve_build_dir()
    std::string build_dir_note; // how the caller chose it (kbuild::describe)
    // Its CONFIG_HZ and where that came from (kbuild::HzChoice::label of choose_hz(0, build)):
    // the guests' HZ when `hz` is empty.
    std::string config_hz_label;
    std::string cache_dir;  // default: ~/.cache/ksweep (module builds, scratch repos)
    std::string work_dir;   // scratch clone, snapshots, boot logs; default: a temp dir
    bool keep_work = false; // keep work_dir afterwards (boot logs); a given work_dir is kept
    // LAVA, --series only: with lava_dir every L4 boot becomes a job in it (lava_export.h)
    // instead of booting here; with lava_results the boots are read back (lava_results.h).
    std::string lava_dir, lava_artifacts_url;
    std::vector<std::string> lava_results;
    std::function<void(const std::string&)> on_progress;
};

// Runs the levels; problems that stop the whole run (no series, no repository, base commit not
// found) go to report.errors, never an exception.
ValidationReport run_validation(const ValidateOptions& options);

struct ReportFiles {
    std::string markdown, json;
    std::vector<std::string> charts; // .svg, one per device run
    std::vector<std::string> pngs;   // rendered with rsvg-convert when it is installed
};

// Writes report.md, report.json and patch-<N>-<driver>.svg (+ .png) into `dir`, their paths
// made shareable: the tree by its name, the series relative to `dir`, nothing of this machine.
ReportFiles write_report_files(const ValidationReport& full, const std::string& dir);

} // namespace ksweep::validate
