// The Markdown report: a verdict line, the per-patch level table, then for every driver that
// booted in QEMU the timing table in the spirit of the original nuvoton thread (seed 000:
// total time, min-max, per variant) with median, p95 and the ratio added.
#include "validate/report_render.h"
#include "validate/stats.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace ksweep::validate {

using namespace ksweep::guest;

namespace {

std::string format(const char* fmt, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, value);
    return buf;
}

// Three significant digits without scientific notation.
std::string significant(double v) {
    if (v >= 100)
        return format("%.0f", v);
    if (v >= 10)
        return format("%.1f", v);
    return format("%.2f", v);
}

// Table cells must not break the table: no newlines, no bare pipes.
std::string cell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|')
            out += "\\|";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out;
}

std::string level_cell(const LevelResult& level) {
    std::string status = to_string(level.status);
    if (level.status == LevelStatus::passed)
        status = "**passed**";
    else if (level.status == LevelStatus::failed)
        status = "**FAILED**";
    return level.message.empty() ? status : status + ": " + cell(level.message);
}

void write_variant_row(std::ostringstream& md, const VariantSummary& v, double baseline_median) {
    const ExtendSummary& s = v.summary;
    md << "| " << v.variant << " | " << v.boots << " | " << s.count << " | "
       << format_duration_us(s.total_ms * 1000) << " | " << format_duration_us(s.min_us) << " - "
       << format_duration_us(s.max_us) << " | " << format_duration_us(s.median_us) << " | "
       << format_duration_us(s.p95_us) << " | ";
    if (baseline_median > 0 && s.count)
        md << format("%.2fx", s.median_us / baseline_median);
    else
        md << "-";
    md << " |\n";
}

// The guest's own HZ count, from the boots that reported one (qemu/init.sh): "250", or
// "not measured".
std::string measured_hz_text(const DeviceRun& run) {
    std::map<int, int> seen;
    for (const auto& b : run.boots)
        if (b.measured_hz > 0)
            ++seen[b.measured_hz];
    if (seen.empty())
        return "not measured";
    std::string text;
    for (const auto& [hz, boots] : seen)
        text += (text.empty() ? "" : ", ") + std::to_string(hz);
    return text;
}

// What one sample of the run is: a TPM's extend, or a device file's operation.
const char* samples_word(const DeviceRun& run) {
    return run.pcr_bank.empty() ? "operations" : "extends";
}

std::string violations_text(const std::map<std::string, unsigned long long>& violations) {
    std::string text;
    for (const auto& [requirement, count] : violations)
        if (count)
            text += (text.empty() ? "" : ", ") + requirement + " x" + std::to_string(count);
    return text.empty() ? "none" : text;
}

void write_device_run(std::ostringstream& md, const PatchResult& patch, const DeviceRun& run,
                      const std::string& chart) {
    md << "\n### Patch " << patch.number << ", " << run.driver << " in QEMU, HZ=" << run.hz
       << interrupt_suffix(run) << "\n\n"
       << "Guest kernel " << run.guest_release << " built from the tree with CONFIG_HZ=" << run.hz
       << " (the guest counted " << measured_hz_text(run) << " jiffies per second). ";
    if (!run.interrupt.empty())
        md << (run.interrupt == "wired"
                   ? "The chip's interrupt line reached the driver (an ivshmem doorbell), as on "
                     "the boards that have it. "
                   : "The chip's interrupt line was not wired: the driver waited its fixed "
                     "delay after every access. ");
    md << run.extends << " " << run.command << " per boot, boots interleaved baseline/patched, "
       << "device profile `" << run.profile << "`";
    if (!run.requirements.empty()) {
        md << " (requirements:";
        for (const auto& [name, value] : run.requirements)
            md << " " << name << " " << value;
        md << ")";
    }
    md << ". The guest's CPU is emulated at one instruction per ns (QEMU `-icount shift=0`); its "
          "sleeps and the device run in real time.\n\n"
       << "| variant | boots | " << samples_word(run)
       << " | total time | min - max | median | p95 | median ratio |\n"
       << "|---|---:|---:|---:|---:|---:|---:|---:|\n";
    double base = run.baseline.summary.median_us;
    write_variant_row(md, run.baseline, base);
    write_variant_row(md, run.patched, base);
    // The interval is the verdict's basis (stats.h, is_slowdown), so it sits under the ratio.
    md << "\nPatched vs baseline: " << format_ratio_evidence(run) << "; bootstrap over the pooled "
       << samples_word(run)
       << ". Called slower only when the whole interval is "
          "above "
       << format("%.2fx", 1.0 + kSlowdownTolerance) << ".\n";
    // A variant none of whose extends ran has no violations to speak of, not "none".
    // Nor one whose boots nobody counted (LAVA jobs without the device's counters).
    auto violations_of = [&run](const VariantSummary& v) {
        size_t unmeasured = 0;
        for (const auto& b : run.boots)
            unmeasured += b.variant == v.variant && !b.violations_measured;
        if (unmeasured)
            return "not measured in " + std::to_string(unmeasured) +
                   " boot(s) (no device counters reported)";
        return v.summary.count ? violations_text(v.violations)
                               : "no " + std::string(samples_word(run)) + " ran";
    };
    md << "\nDevice requirement violations: baseline " << violations_of(run.baseline)
       << "; patched " << violations_of(run.patched) << ".\n\n";
    md << "| boot | variant | result | " << (run.pcr_bank.empty() ? "value" : "PCR")
       << " check | median | violations | wall | host load | nice |\n"
       << "|---:|---|---|---|---:|---|---:|---:|---:|\n";
    for (size_t i = 0; i < run.boots.size(); ++i) {
        const BootRun& b = run.boots[i];
        ExtendSummary s = summarize(b.samples);
        md << "| " << i + 1 << " | " << b.variant << " " << b.boot << " | "
           << (b.ok ? "ok" : "**FAILED** " + cell(b.message)) << " | "
           << (b.pcr_passed ? "passed" : "failed") << " | "
           << (s.count ? format_duration_us(s.median_us) : "-") << " | "
           << (!b.violations_measured ? "not measured"
               : s.count              ? violations_text(b.violations)
                                      : "-")
           << " | " << format("%.0f s", b.wall_seconds) << " | "
           << (b.host_load < 0 ? std::string("-") : format("%.1f", b.host_load)) << " | " << b.nice
           << " |\n";
    }
    if (!chart.empty())
        md << "\n![" << run.driver << " " << run.command << " latency, baseline vs patched]("
           << chart << ")\n";
}

// The seed's table (000: one row per HZ, msleep vs usleep_range): one row per guest HZ for each
// driver a patch booted, baseline and patched medians and their ratio.
void write_hz_table(std::ostringstream& md, const PatchResult& patch) {
    std::map<std::string, std::vector<const DeviceRun*>> by_driver;
    for (const auto& run : patch.devices)
        by_driver[run.driver].push_back(&run);
    for (const auto& [driver, runs] : by_driver) {
        md << "\n### Patch " << patch.number << ", " << driver << ": per HZ\n\n"
           << "| HZ | guest kernel | HZ counted in the guest | baseline median | patched median "
              "| median ratio |\n"
           << "|---:|---|---:|---:|---:|---|\n";
        for (const DeviceRun* run : runs) {
            auto median = [](const VariantSummary& v) {
                return v.summary.count ? format_duration_us(v.summary.median_us)
                                       : std::string("no extends ran");
            };
            md << "| " << run->hz << interrupt_suffix(*run) << " | " << run->guest_release << " | "
               << measured_hz_text(*run) << " | " << median(run->baseline) << " | "
               << median(run->patched) << " | "
               << (run->median_ratio > 0 ? cell(format_ratio_evidence(*run)) : "-") << " |\n";
        }
    }
}

} // namespace

std::string format_duration_us(double us) {
    if (us < 1000)
        return significant(us) + " us";
    if (us < 1e6)
        return significant(us / 1000) + " ms";
    return significant(us / 1e6) + " s";
}

std::string render_markdown(const ValidationReport& report,
                            const std::vector<std::string>& chart_files) {
    std::ostringstream md;
    md << "# ksweep validate: " << (report.passed() ? "PASSED" : "FAILED") << "\n\n"
       << "- tree: `" << report.tree << "`\n"
       << "- series: `" << report.series << "`\n";
    if (!report.base_commit.empty())
        md << "- base commit: " << report.base_commit << "\n";
    md << "- modules built against: `" << report.headers_dir << "`";
    if (report.config_hz)
        md << " (CONFIG_HZ=" << report.config_hz << ")";
    md << "\n";
    if (!report.build_dir_note.empty())
        md << "- " << report.build_dir_note << "\n";
    bool booted = std::find(report.levels.begin(), report.levels.end(), 4) != report.levels.end();
    if (booted) {
        md << "- guest kernels: built from the tree (tinyconfig + qemu/guest.config), HZ";
        for (size_t i = 0; i < report.guest_hz.size(); ++i)
            md << (i ? ", " : " ") << report.guest_hz[i];
        md << " (" << report.guest_hz_source << ")";
        if (!report.kernel_release.empty())
            md << ", release " << report.kernel_release;
        md << "; QEMU (TCG), emulated I2C device\n";
    }
    md << "- levels:";
    for (int level : report.levels)
        md << " L" << level;
    if (booted)
        md << "; " << report.boots << " boots per variant, " << report.extends
           << " extends or operations per boot";
    md << "\n"
       << "- " << report.tool_version << ", started " << report.started_at << ", took "
       << format_duration_us(report.wall_seconds * 1e6) << "\n";
    for (const auto& error : report.errors)
        md << "- **error**: " << error << "\n";

    md << "\n## Patches\n\n"
       << "| # | patch | L1 applies | L2 checkpatch | L3 builds | L4 QEMU |\n"
       << "|---:|---|---|---|---|---|\n";
    for (const auto& patch : report.patches) {
        md << "| " << patch.number << " | " << cell(patch.subject);
        for (const auto& level : patch.levels)
            md << " | " << level_cell(level);
        md << " |\n";
    }

    size_t chart_index = 0;
    for (const auto& patch : report.patches) {
        bool any_details = false;
        for (const auto& level : patch.levels)
            any_details |= !level.details.empty();
        if (any_details) {
            md << "\n### Patch " << patch.number << " details\n\n";
            for (size_t l = 0; l < patch.levels.size(); ++l)
                for (const auto& line : patch.levels[l].details)
                    md << "- L" << l + 1 << ": " << line << "\n";
        }
        if (!patch.devices.empty())
            write_hz_table(md, patch);
        for (const auto& run : patch.devices) {
            std::string chart = chart_index < chart_files.size() ? chart_files[chart_index] : "";
            ++chart_index;
            write_device_run(md, patch, run, chart);
        }
    }
    return md.str();
}

} // namespace ksweep::validate
