// ksweep guest: one validation boot. Builds the guest kernel from the tree at the asked HZ
// (cached), the driver under test against that build, boots it in QEMU with an emulated I2C TPM
// of the device registry (the Nuvoton one by default), extends PCR 16 N times and prints the
// per-extend times and the host's PCR check.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/file_io.h"
#include "guest/guest_benchmark.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ksweep::cli {

using namespace ksweep::guest;

namespace {

// Boot phases: one updating line on a terminal, plain lines in a log.
class ProgressLine {
  public:
    ProgressLine() : tty_(isatty(STDERR_FILENO)), start_(std::chrono::steady_clock::now()) {}
    ~ProgressLine() { clear(); }

    void show(const std::string& text) {
        double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        bool is_count = text.rfind("extend ", 0) == 0 && text.find('/') != std::string::npos;
        if (tty_) {
            std::fprintf(stderr, "\r\033[K[%6.1fs] %s", seconds, text.c_str());
            std::fflush(stderr);
            shown_ = true;
        } else if (!is_count) {
            std::fprintf(stderr, "[%6.1fs] %s\n", seconds, text.c_str());
        }
    }
    void clear() {
        if (shown_)
            std::fprintf(stderr, "\r\033[K");
        shown_ = false;
    }

  private:
    bool tty_, shown_ = false;
    std::chrono::steady_clock::time_point start_;
};

std::string build_line(const guest::ModuleBuildResult& build) {
    std::string line = build.cached ? "cached" : "built";
    line += ", " + std::to_string(build.warnings.size()) + " warning(s)";
    return line;
}

} // namespace

int guest_command(int argc, char** argv) {
    std::string device = "tpm_i2c_nuvoton", driver_source, driver_dir, profile, keep, tree,
                interrupt;
    int extends = 10, timeout = 0, hz = 250;
    bool trace = false;
    ArgParser parser(
        "guest", "[options] [TREE]",
        "Boot a kernel built from TREE (qemu/guest.config at --guest-hz; built once, then\n"
        "cached) in QEMU with one of ksweep's emulated I2C devices (qemu/devices.yaml), load the\n"
        "device's driver modules built against that kernel's build from the tree (FILE in place\n"
        "of the tree's file of that name), extend PCR 16 N times through /dev/tpm0 (a TPM) or\n"
        "run the device file's operation N times (a sysfs read, RTC_SET_TIME) and print the\n"
        "times. The final PCR is checked against the hash chain computed on the host, or every\n"
        "value read against the device file. Exit status 0 only if all of it passed; 2 when\n"
        "the guest kernel does not build (make's errors and the log are printed) or for bad\n"
        "usage.");
    parser.option("--tree", &tree, "TREE",
                  "the tree, as the argument gives it: the kernel tree the guest kernel and the "
                  "driver come from (default: the setup's 6.1 tree, KSWEEP_TREE_6_1)");
    parser.option("--guest-hz", &hz, "N",
                  "the guest kernel's HZ: 100, 250, 300 or 1000 (default 250)");
    parser.deprecated("--hz", "--guest-hz",
                      "the guest kernel's HZ; --hz is the sleep model's HZ in scan, fix, series "
                      "and check");
    std::vector<std::string> positionals;
    parser.positionals(&positionals, 0);
    parser.option("--device", &device, "NAME",
                  "device registry entry (default tpm_i2c_nuvoton; also tpm_st33zp24_i2c,\n"
                  "tpm_tis_i2c_cr50 and every device file's driver: `ksweep devices` lists them)");
    parser.option("--interrupt", &interrupt, "MODE",
                  "the chip's interrupt line: wired (to the driver's IRQ) or none (default: as\n"
                  "boards wire it, qemu/devices.yaml)");
    parser.option("--driver-src", &driver_source, "FILE",
                  "driver source to build and test instead of the tree's file of that name");
    parser.option("--driver-src-dir", &driver_dir, "DIR",
                  "where its private headers are (default: the tree's drivers/char/tpm)");
    parser.option("-n", &extends, "N",
                  "number of PCR extends, or of a device file's operations (default 10)");
    parser.option("--profile", &profile, "FILE", "device profile (default: the device's own)");
    parser.option("--timeout", &timeout, "S", "kill the guest after S seconds (default: by N)");
    parser.option("--keep", &keep, "DIR",
                  "run directory to keep (logs, stats); default: a temporary one, kept on failure");
    parser.flag("--trace", &trace,
                "write every I2C message the driver sent, with its time, to i2c-trace.log in the\n"
                "run directory (kept)");
    if (auto exit = parser.parse(argc, argv))
        return *exit;
    if (positionals.size() > 1 || (!positionals.empty() && !tree.empty())) {
        std::fprintf(stderr, "ksweep guest: one TREE (as the argument or --tree), not %zu\n",
                     positionals.size() + !tree.empty());
        return 2;
    }
    if (!positionals.empty())
        tree = positionals.front();
    if (extends <= 0 || extends > 100000) {
        std::fprintf(stderr, "ksweep guest: -n %d: 1 to 100000\n", extends);
        return 2;
    }
    if (timeout < 0) {
        std::fprintf(stderr, "ksweep guest: --timeout %d: 0 (by -n) or more seconds\n", timeout);
        return 2;
    }
    if (!guest::is_supported_hz(hz)) {
        std::fprintf(stderr,
                     "ksweep guest: --guest-hz must be 100, 250, 300 or 1000 (x86's Kconfig)\n");
        return 2;
    }
    if (!tree.empty() && !fs::is_directory(tree)) {
        std::fprintf(stderr, "ksweep guest: no such tree '%s'\n", tree.c_str());
        return 2;
    }

    guest::GuestBenchmarkOptions options;
    if (!interrupt.empty() && !(options.interrupt = device::parse_interrupt_mode(interrupt))) {
        std::fprintf(stderr, "ksweep guest: --interrupt must be wired or none\n");
        return 2;
    }
    options.device = device;
    options.tree = tree;
    options.hz = hz;
    options.driver_source = driver_source;
    if (!driver_source.empty() && !fs::is_regular_file(driver_source)) {
        std::fprintf(stderr, "ksweep guest: no such driver source '%s'\n", driver_source.c_str());
        return 2;
    }
    if (!driver_dir.empty())
        options.driver_include_dirs.push_back(driver_dir);
    options.extends = static_cast<std::uint32_t>(extends);
    options.profile = profile;
    options.timeout = std::chrono::seconds(timeout);
    options.trace = trace;
    std::optional<TempDir> temp_run_dir; // without --keep; removed unless it is worth a look
    if (keep.empty()) {
        try {
            options.run_dir = temp_run_dir.emplace("ksweep-guest").path().string();
        } catch (const std::system_error& e) {
            std::fprintf(stderr, "ksweep guest: %s\n", e.what());
            return 1;
        }
    } else {
        options.run_dir = keep;
    }

    guest::GuestBenchmarkResult result;
    {
        ProgressLine progress;
        options.on_progress = [&](const std::string& text) { progress.show(text); };
        result = guest::run_guest_benchmark(options);
    }
    if (!result.error.empty()) { // it never booted: nothing in the run directory to look at
        std::fprintf(stderr, "ksweep guest: %s\n", result.error.c_str());
        // The guest kernel could not be had (make's errors above): the setup's problem, 2.
        return result.guest_build_failed ? 2 : 1;
    }
    const auto& run = result.run;
    std::string sources;
    for (const auto& source : result.driver_sources)
        sources += (sources.empty() ? "" : ", ") + source;
    std::printf("kernel    %s, CONFIG_HZ=%d%s (%s)\n", result.guest.release.c_str(),
                result.guest.hz, guest::measured_hz_note(run.report, result.guest.hz).c_str(),
                result.guest.dir.c_str());
    std::printf("driver    %s (%s)\n", sources.c_str(), build_line(result.driver_build).c_str());
    if (result.device.interrupt != device::InterruptMode::none)
        std::printf("interrupt %s\n", result.interrupt == device::InterruptMode::wired
                                          ? "the chip's line, an ivshmem doorbell's MSI-X vector"
                                          : "not wired (the driver waits its fixed delays)");
    for (const auto& w : result.driver_build.warnings)
        std::printf("          %s\n", w.c_str());
    std::printf("boot      %s, QEMU ran %.1f s at nice %d%s\n", guest::to_string(run.outcome),
                run.wall_seconds, run.nice,
                run.nice < 0 ? ""
                             : " (could not raise its priority: host load shows in the times)");
    const bool tpm = result.device.is_tpm();
    std::printf("%-9s %s\n", tpm ? "extends" : "operation",
                guest::format_summary(result.summary).c_str());
    std::printf("result    %s\n", run.message.c_str());
    if (run.device)
        std::printf("device    %s (%ld %s)\n", run.device->summary().c_str(),
                    tpm ? run.device->commands : run.device->counter("messages"),
                    tpm ? "commands" : "messages");
    else
        std::printf("device    no statistics from ksweep-tpmd\n");
    if (!run.trace_log.empty())
        std::printf("trace     %s\n", run.trace_log.c_str());
    if (!result.ok || !keep.empty() || trace) {
        if (temp_run_dir)
            temp_run_dir->release();
        std::printf("run dir   %s\n", run.run_dir.c_str());
    }
    return result.ok ? 0 : 1;
}

} // namespace ksweep::cli
