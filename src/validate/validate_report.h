// What `ksweep validate` found, level by level and patch by patch: the one structure the
// Markdown, JSON and SVG renderers read (docs/report-json.md describes the JSON form, which
// `ksweep series --report` reads back into commit messages and the cover letter).
#pragma once

#include "guest/guest_output.h"
#include "guest/guest_stats.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::validate {

// not_run: an earlier level failed, so this one proves nothing and was skipped.
// not_applicable: the level has nothing to check for this patch (no driver, no device model).
// not_built: L3 only, the config does not enable the driver (never counted as passed).
enum class LevelStatus { passed, failed, not_run, not_applicable, not_built, skipped };

const char* to_string(LevelStatus status);

struct LevelResult {
    LevelStatus status = LevelStatus::not_run;
    std::string message;              // one line for the table
    std::vector<std::string> details; // checkpatch lines, new warnings, failing boots...
    double seconds = 0;               // wall time spent on this level for this patch
};

// L2: what checkpatch.pl --strict said about one patch.
struct CheckpatchCounts {
    int errors = 0, warnings = 0, checks = 0;
    std::vector<std::string> messages; // "WARNING:MSLEEP: ..." with the file:line that follows
};

// L3: one module a patch touches, built before and after.
struct ModuleOutcome {
    std::string name;         // "tpm_i2c_nuvoton"
    std::string directory;    // tree-relative, "drivers/char/tpm"
    std::string config;       // "CONFIG_TCG_TIS_I2C_NUVOTON"
    std::string config_value; // "m", "y" or "" (not set)
    LevelStatus status = LevelStatus::not_run;
    std::string message;
    std::vector<std::string> new_warnings; // in the patched build, not in the baseline
};

// L4: one boot of one variant.
struct BootRun {
    std::string variant;     // "baseline" or "patched"
    int boot = 0;            // 1-based within its variant
    bool ok = false;         // every extend succeeded and the PCR check passed
    bool pcr_passed = false; // the result check: PCR 16 (a TPM) or the values (a device file)
    std::string message;
    std::vector<guest::ExtendSample> samples;
    std::map<std::string, unsigned long long> violations; // requirement -> count, this boot
    // False when nobody counted them: a LAVA job whose guest reported no device counters.
    bool violations_measured = true;
    double wall_seconds = 0;
    std::string run_dir;   // console and back end logs
    int nice = 0;          // niceness QEMU and ksweep-tpmd ran at (GuestRunOptions::nice)
    double host_load = -1; // the host's 1-minute load average when the boot started (-1: unknown)
    int measured_hz = 0;   // jiffies per second the guest counted (qemu/init.sh); 0: not measured
};

// The statistics of one variant over all its boots pooled.
struct VariantSummary {
    std::string variant;
    guest::ExtendSummary summary;
    int boots = 0;
    int failed_boots = 0;
    std::map<std::string, unsigned long long> violations; // requirement -> total count
};

// L4 of one driver: both variants, interleaved boots, and the verdict.
struct DeviceRun {
    std::string driver; // the device registry entry booted
    int hz = 0;         // CONFIG_HZ of the guest kernel it booted (one per --hz)
    // The chip's interrupt line: "wired" to the guest's driver, "none" left unwired (one row per
    // --interrupt), "" for a device that has none.
    std::string interrupt;
    std::string guest_release;   // that kernel's release (its uname -r), built from the tree
    std::string guest_build_dir; // where it was built (O=), "" when its build failed
    std::string command = "TPM2_PCR_Extend";         // what one extend is (the benchmark)
    std::string pcr_bank = "sha256";                 // the chain PCR 16 was checked against
    std::string profile;                             // path of the device profile
    std::map<std::string, std::string> requirements; // name -> "1000 us", from the profile
    std::uint32_t extends = 0;
    std::vector<BootRun> boots; // in the order they ran
    VariantSummary baseline, patched;
    double median_ratio = 0; // patched median / baseline median (0: not measured)
    // The 95 % bootstrap confidence interval of median_ratio (stats.h, bootstrap_median_ratio);
    // both 0 when there were too few extends to compute one.
    double median_ratio_low = 0, median_ratio_high = 0;
    double mann_whitney_p = -1; // two-sided, pooled patched vs baseline extends (-1: not computed)
};

// ", IRQ" or ", no IRQ" for a device with an interrupt line, "" for one without: what tells a
// run's row, heading and chart from its sibling of the other wiring.
std::string interrupt_suffix(const DeviceRun& run);

struct PatchResult {
    size_t number = 0;              // 1-based position in the series
    std::string path;               // the patch file
    std::string subject;            // without the [PATCH m/n] prefix
    std::vector<std::string> files; // tree-relative files it changes
    std::array<LevelResult, 4> levels;
    CheckpatchCounts checkpatch;
    std::vector<ModuleOutcome> modules;
    std::vector<DeviceRun> devices;

    // No level failed (not_built / not_applicable / skipped levels do not fail a patch).
    bool passed() const;
};

struct ValidationReport {
    std::string tool_version;
    std::string tree;
    std::string series; // the series directory or the git range
    std::string base_commit;
    std::string headers_dir;    // the tree's build dir L3 builds in
    std::string build_dir_note; // how it was chosen: kbuild::describe()
    std::string kernel_release; // the guest kernel, built from the tree (L4)
    int config_hz = 0;
    std::vector<int> guest_hz;   // L4: one guest kernel per HZ, in this order
    std::string guest_hz_source; // "--hz", or where the single HZ came from
    std::vector<int> levels;     // requested
    int boots = 0;               // per variant
    std::uint32_t extends = 0;   // per boot
    std::string profile;         // device profile override ("" = each model's default)
    std::string started_at;      // UTC, ISO 8601
    double wall_seconds = 0;
    std::vector<PatchResult> patches;
    std::vector<std::string> errors; // problems outside any one patch
    std::string work_dir_kept;       // scratch checkout, builds' and boots' logs (--keep-work)

    bool passed() const;
};

// The relative slowdown we still call noise: patched median up to 10 % above the baseline's.
// L4 calls a patch slower only when the confidence interval's lower end is above it (stats.h).
inline constexpr double kSlowdownTolerance = 0.10;

} // namespace ksweep::validate
