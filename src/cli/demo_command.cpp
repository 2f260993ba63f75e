// ksweep demo: the whole job on the embedded default, as a new user meets it.
//
// Debian's Linux 6.1 source, with drivers/char/tpm/tpm_i2c_nuvoton.c taken back to its
// pre-v4.12 msleep() form (the reproduction of the 2017 problem), together with the
// present-day sites in drivers/char/tpm: scan, fix, write the series, validate it (L1-L3 for
// every patch, L4 in QEMU where a device model exists), and write the series again with the
// measured figures in its commit messages and cover letter.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rule_options.h"
#include "core/data_dir.h"
#include "core/file_io.h"
#include "core/rule.h"
#include "core/sha256.h"
#include "guest/guest_benchmark.h"
#include "kbuild/kernel_tree.h"
#include "rewrite/fixer.h"
#include "rewrite/scanner.h"
#include "series/series.h"
#include "validate/report_render.h"
#include "validate/validate_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace ksweep::cli {

using namespace ksweep::guest;

namespace {

constexpr const char* kDemoPath = "drivers/char/tpm";
constexpr const char* kNuvoton = "drivers/char/tpm/tpm_i2c_nuvoton.c";

using Clock = std::chrono::steady_clock;

// "[  12.3s] what" on stderr: the demo's log of steps, readable on a terminal and in a file.
class StepLog {
  public:
    void operator()(const std::string& what) const {
        std::fprintf(stderr, "[%6.1fs] %s\n", seconds(), what.c_str());
    }
    double seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  private:
    Clock::time_point start_ = Clock::now();
};

int run(const std::string& command) {
    return std::system(command.c_str());
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// What the demo tree is made of: the unpacked source (setup's `.ksweep-unpacked-<version>`
// marker, so a new Debian point release gets a new demo tree, never the old one's files) and the
// historical script. Empty when the source has no marker (a tree setup did not unpack).
std::string demo_tree_key(const fs::path& source, const std::string& script) {
    std::string marker;
    for (const auto& e : fs::directory_iterator(source))
        if (e.path().filename().string().rfind(".ksweep-unpacked-", 0) == 0)
            marker = e.path().filename().string();
    Sha256 key;
    key.update(marker.empty() ? source.string() : marker);
    key.update(read_file(script).value_or(""));
    return to_hex(key.finish()).substr(0, 16);
}

// The demo tree: hard links to the cached 6.1 source (cheap, read-only use), except the
// nuvoton driver, which is a new file with the historical content, so the cached source is
// never written through a shared inode. Made once per source version and script, reused; a
// demo tree of another key is removed (its links pin a source setup has replaced).
std::string prepare_demo_tree(const guest::GuestEnvironment& env, const StepLog& log) {
    const std::string name = "linux-source-6.1-nuvoton-2017";
    std::string script = data_file("tests/historical/nuvoton_pre_v4_12.sh");
    fs::path parent = fs::path(env.cache_dir) / "demo";
    fs::path dir = parent / (name + "-" + demo_tree_key(env.tree, script));
    fs::path ready = dir / ".ksweep-demo-ready";
    if (fs::exists(ready))
        return dir.string();
    if (fs::exists(parent))
        for (const auto& e : fs::directory_iterator(parent))
            if (e.path() != dir && e.path().filename().string().rfind(name, 0) == 0) {
                log("removing the demo tree of an earlier source or script: " + e.path().string());
                fs::remove_all(e.path());
            }
    log("preparing the demo tree " + dir.string() + " (hard links to the 6.1 source)");
    fs::remove_all(dir);
    fs::create_directories(dir.parent_path());
    if (run("cp -al " + shell_quote(env.tree) + " " + shell_quote(dir.string())) != 0)
        throw std::runtime_error("cannot make the demo tree with cp -al in " + dir.string());
    fs::path target = dir / kNuvoton;
    fs::path historical = target.string() + ".pre-v4.12";
    if (run("bash " + shell_quote(script) + " " +
            shell_quote((fs::path(env.tree) / kNuvoton).string()) + " " +
            shell_quote(historical.string())) != 0)
        throw std::runtime_error("the historical script failed on " + std::string(kNuvoton));
    fs::remove(target); // the hard link, not the cached file
    fs::rename(historical, target);
    std::FILE* f = std::fopen(ready.c_str(), "w");
    if (f)
        std::fclose(f);
    log("reproduced the 2017 problem: " + std::string(kNuvoton) +
        " is back in its pre-v4.12 msleep() form");
    return dir.string();
}

std::string timestamp() {
    std::time_t now = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
    return buf;
}

void print_scan_summary(const ScanResult& scan) {
    std::map<std::string, int> by_resolution;
    size_t actionable = 0;
    double shortest = 0, longest = 0; // predicted real sleeps of the actionable calls
    for (const auto& f : scan.findings) {
        if (!f.actionable)
            continue;
        shortest = actionable ? std::min(shortest, f.predicted_sleep_ms) : f.predicted_sleep_ms;
        longest = std::max(longest, f.predicted_sleep_ms);
        ++actionable;
        ++by_resolution[std::string(to_string(f.resolution))];
    }
    std::printf("scan: %zu msleep() calls in %s, %zu below 20 ms (", scan.findings.size(),
                kDemoPath, actionable);
    const char* sep = "";
    for (const auto& [kind, n] : by_resolution) {
        std::printf("%s%d %s", sep, n, kind.c_str());
        sep = ", ";
    }
    std::printf("); at HZ=%d they sleep up to %.0f-%.0f ms\n", scan.hz, shortest, longest);
}

void print_device_table(const validate::DeviceRun& run) {
    using validate::format_duration_us;
    std::printf("\n%s, %u %s per boot, %d+%d boots (emulated I2C TPM, QEMU TCG with -icount "
                "shift=0, guest kernel %s built from the tree, HZ=%d%s):\n\n",
                run.driver.c_str(), run.extends, run.command.c_str(), run.baseline.boots,
                run.patched.boots, run.guest_release.c_str(), run.hz,
                validate::interrupt_suffix(run).c_str());
    std::printf("  %-9s %10s  %-21s %10s %10s\n", "variant", "total", "min - max", "median", "p95");
    for (const auto* v : {&run.baseline, &run.patched}) {
        const auto& s = v->summary;
        std::string range = format_duration_us(s.min_us) + " - " + format_duration_us(s.max_us);
        std::printf("  %-9s %10s  %-21s %10s %10s\n", v->variant.c_str(),
                    format_duration_us(s.total_ms * 1000).c_str(), range.c_str(),
                    format_duration_us(s.median_us).c_str(), format_duration_us(s.p95_us).c_str());
    }
    if (run.median_ratio > 0)
        std::printf("\n  patched median = %.2f x baseline median (%.1fx faster)\n",
                    run.median_ratio, 1 / run.median_ratio);
}

void print_validation(const validate::ValidationReport& report) {
    std::printf("\nvalidation (%s):\n%s", report.passed() ? "PASSED" : "FAILED",
                validate::render_level_lines(report, "  ").c_str());
    for (const auto& patch : report.patches)
        for (const auto& run : patch.devices)
            print_device_table(run);
}

} // namespace

int demo_command(int argc, char** argv) {
    std::string out_dir;
    int boots = 2, extends = 200;
    std::vector<std::string> none;
    ArgParser args("demo", "[-o DIR] [--boots N] [-n EXTENDS]",
                   "The whole pipeline on the embedded default: Debian's Linux 6.1 source with\n"
                   "tpm_i2c_nuvoton.c taken back to its pre-v4.12 msleep() form (the 2017\n"
                   "problem), plus today's sites in drivers/char/tpm. Scans, fixes, writes the\n"
                   "series into patches/demo-<time>/, validates it (L1-L3 for every patch, L4 in\n"
                   "QEMU with the emulated Nuvoton TPM), and writes the series again with the\n"
                   "measured figures. Never overwrites an earlier run's output.");
    args.option("-o", &out_dir, "DIR", "output directory (default: patches/demo-<time>)");
    args.option("--boots", &boots, "N", "L4 boots per variant, interleaved (default 2)");
    args.option("-n", &extends, "EXTENDS", "TPM extends per boot (default 200)");
    args.positionals(&none, 0);
    if (auto rc = args.parse(argc, argv))
        return *rc;
    for (const auto& [bad, what] :
         {std::pair{!none.empty(), "takes no TREE: it runs on Debian's 6.1 tree, KSWEEP_TREE_6_1"},
          std::pair{boots < 1, "--boots must be 1 or more"},
          std::pair{extends < 1, "-n must be 1 or more"}})
        if (bad) {
            std::fprintf(stderr, "ksweep demo: %s\n", what);
            return 2;
        }
    if (out_dir.empty())
        out_dir = "patches/demo-" + timestamp();
    if (fs::exists(out_dir)) {
        std::fprintf(stderr, "ksweep demo: %s exists: choose another -o, nothing was changed\n",
                     out_dir.c_str());
        return 2;
    }

    StepLog log;
    try {
        auto env = guest::GuestEnvironment::load();
        std::string tree = prepare_demo_tree(env, log);
        // The replay of 2017: tpm_msleep() came with v4.15, so the fix is upstream's own
        // usleep_range() with a named range (a233a0289cf9), as `fix --no-helpers` writes it.
        RuleOptions replay;
        replay.names = {"msleep_small"};
        replay.no_helpers = true;
        std::vector<Rule> rules = replay.load();
        RuleOptions::settle(rules, "demo", tree,
                            kbuild::find_build_dir(
                                tree, kbuild::read_kernel_version(tree).value_or(KernelVersion{})));
        const Rule& rule = rules.front();

        log("scanning " + std::string(kDemoPath));
        ScanOptions scan_options;
        scan_options.tree = tree;
        scan_options.paths = {kDemoPath};
        ScanResult scan = scan_tree(rule, scan_options);
        print_scan_summary(scan);

        log("fixing");
        FixResult fix = plan_fixes(rule, scan_options, scan);
        size_t sites = 0;
        for (const auto& file : fix.files)
            for (const auto& s : file.sites)
                sites += s.fixed;
        std::printf("fix: %zu sites rewritten in %zu files, %zu left alone\n", sites,
                    fix.files.size(), fix.skipped.size());
        if (fix.files.empty())
            throw std::runtime_error("nothing to fix: the demo tree is not what it should be");

        log("writing the series into " + out_dir);
        series::SeriesOptions series_options;
        series_options.tree = tree;
        series_options.out_dir = out_dir;
        series_options.signature = std::string("ksweep ") + KSWEEP_VERSION;
        series_options.signoff = "ksweep demo <ksweep-demo@example.org>";
        series::SeriesResult written = series::write_series(rule, fix, series_options);
        if (written.series.empty())
            throw std::runtime_error("the series writer wrote nothing");

        validate::ValidateOptions validate_options;
        validate_options.tree = tree; // validate finds the scratch repository itself
        validate_options.series_dir = written.series.front().dir;
        validate_options.boots = boots;
        validate_options.extends = static_cast<std::uint32_t>(extends);
        // Every patch with a device model boots: the 2017 replay's nuvoton and st33zp24, and the
        // cr50 (a 2020 driver) with its interrupt line wired, as boards wire it (docs/cr50.md).
        validate_options.on_progress = [&log](const std::string& what) {
            if (what.find(": extend ") == std::string::npos) // one line per extend is noise
                log(what);
        };
        log("validating: L1 git am, L2 checkpatch.pl --strict, L3 module builds, L4 QEMU");
        validate::ValidationReport report = validate::run_validation(validate_options);
        validate::ReportFiles files =
            validate::write_report_files(report, (fs::path(out_dir) / "report").string());

        if (report.passed()) {
            log("writing the series again with the measured figures");
            series_options.report = files.json;
            series_options.force = true;
            written = series::write_series(rule, fix, series_options);
        }

        print_validation(report);
        const auto& final_series = written.series.front();
        std::printf("\nseries: %zu patches + cover letter in %s/ (branch %s in %s)\n",
                    final_series.subjects.size(), final_series.dir.c_str(),
                    final_series.branch.c_str(), written.repository.c_str());
        for (const auto& f : final_series.files)
            std::printf("  %s\n", fs::path(f).filename().c_str());
        std::printf("report: %s", files.markdown.c_str());
        for (const auto& chart : files.charts)
            std::printf(", %s", chart.c_str());
        std::printf("\n\nnext: read the mails, then send them (To/Cc are already in each one):\n"
                    "  git send-email --dry-run %s/*.patch\n"
                    "  git send-email %s/*.patch\n",
                    final_series.dir.c_str(), final_series.dir.c_str());
        std::printf("\ndone in %.0f s\n", log.seconds());
        return report.passed() ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ksweep demo: %s\n", e.what());
        return 2;
    }
}

} // namespace ksweep::cli
