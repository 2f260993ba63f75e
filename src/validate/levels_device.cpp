#include "validate/levels_device.h"

#include "device/device_profile.h"
#include "guest/guest_benchmark.h"
#include "validate/stats.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::validate {

using namespace ksweep::guest;

namespace {

std::string microseconds(device::Duration d) {
    return std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(d).count()) + " us";
}

void write_snapshot(const SourceSnapshot& files, const fs::path& root) {
    for (const auto& [rel, text] : files) {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel, std::ios::binary) << text;
    }
}

std::string join(const std::map<std::string, unsigned long long>& violations,
                 const std::string& variant) {
    std::string text;
    for (const auto& [requirement, count] : violations)
        text += (text.empty() ? "" : "; ") + variant + " broke " + requirement + " " +
                std::to_string(count) + " times";
    return text;
}

} // namespace

std::map<std::string, unsigned long long>
requirement_violations(const guest::DeviceCounters& device) {
    std::map<std::string, unsigned long long> out;
    for (const auto& info : device::requirement_table())
        if (long n = device.counter(info.counter); n > 0)
            out[info.name] = static_cast<unsigned long long>(n);
    return out;
}

std::map<std::string, std::string> profile_requirements(const std::string& profile_path) {
    std::map<std::string, std::string> out;
    try {
        device::DeviceProfile profile = device::load_device_profile(profile_path);
        for (device::Requirement r : device::stated_requirements(profile.requirements))
            out[device::requirement_info(r).name] = microseconds(*profile.requirements.get(r));
    } catch (const std::exception&) {
    }
    return out;
}

void judge_device_run(const DeviceRun& run, LevelResult& level) {
    // The verdict: every boot worked, no requirement broken, not slower.
    std::vector<std::string> problems;
    for (const auto& b : run.boots) {
        if (!b.ok)
            problems.push_back(b.variant + " boot " + std::to_string(b.boot) +
                               " failed: " + b.message);
        else if (!b.pcr_passed)
            problems.push_back(b.variant + " boot " + std::to_string(b.boot) + ": " +
                               (run.pcr_bank.empty() ? "value" : "PCR") + " check failed");
    }
    std::string broken = join(run.baseline.violations, "baseline");
    std::string broken_patched = join(run.patched.violations, "patched");
    if (!broken_patched.empty())
        broken += (broken.empty() ? "" : "; ") + broken_patched;

    // "median ratio 2.01x (95 % CI 1.97-2.05, Mann-Whitney p < 0.001), patched 2010 us vs
    // baseline 1000 us": the interval is what the slowdown verdict is taken on (stats.h).
    char medians[96];
    std::snprintf(medians, sizeof medians, ", patched %.0f us vs baseline %.0f us",
                  run.patched.summary.median_us, run.baseline.summary.median_us);
    std::string ratio = format_ratio_evidence(run) + medians;
    if (!broken.empty()) {
        level.status = LevelStatus::failed;
        level.message = "device requirement violated: " + broken;
    } else if (!problems.empty()) {
        level.status = LevelStatus::failed;
        level.message = problems.front();
    } else if (is_slowdown(run)) {
        level.status = LevelStatus::failed;
        char bound[64];
        std::snprintf(bound, sizeof bound, "; the whole CI is above %.2fx",
                      1.0 + kSlowdownTolerance);
        level.message = "slower: " + ratio + bound;
    } else {
        level.status = LevelStatus::passed;
        level.message =
            ratio + (run.pcr_bank.empty() ? ", values checked in " : ", PCR checks passed in ") +
            std::to_string(run.boots.size()) + " boots";
    }
    level.details.insert(level.details.end(), problems.begin(), problems.end());
}

std::vector<device::InterruptMode>
interrupt_modes(const device::DeviceEntry& device,
                const std::vector<device::InterruptMode>& asked) {
    if (device.interrupt == device::InterruptMode::none)
        return {device::InterruptMode::none};
    return asked.empty() ? std::vector{device.interrupt} : asked;
}

DeviceRun run_device_level(const device::DeviceEntry& device, const SourceSnapshot& baseline,
                           const SourceSnapshot& patched, const DeviceRunOptions& options,
                           LevelResult& level) {
    DeviceRun run;
    run.driver = device.driver;
    run.command = device.benchmark.command;
    run.pcr_bank = device.benchmark.pcr_bank;
    run.profile = options.profile.empty() ? device.profile : options.profile;
    run.requirements = profile_requirements(run.profile);
    run.extends = options.extends;
    bool has_line = device.interrupt != device::InterruptMode::none;
    if (has_line)
        run.interrupt = device::to_string(options.interrupt);

    run.hz = options.hz;

    // The guest kernel first, once: a build that fails is one line, not one per boot.
    GuestBuild guest;
    std::string tree = options.tree;
    try {
        GuestEnvironment env = GuestEnvironment::load();
        if (tree.empty())
            tree = env.tree;
        guest = build_guest_kernel({tree, options.hz, "", env.cache_dir, options.on_progress});
    } catch (const std::exception& e) {
        // One line: what failed with its log, and make's first error; the rest in the details.
        std::istringstream lines(e.what());
        std::string first, line;
        std::getline(lines, first);
        level.status = LevelStatus::failed;
        level.message = "guest kernel (HZ=" + std::to_string(options.hz) + "): " + first;
        if (std::getline(lines, line))
            level.message += " " + line;
        while (std::getline(lines, line))
            level.details.push_back(line);
        return run;
    }
    run.guest_release = guest.release;
    run.guest_build_dir = guest.dir;

    fs::path work = options.work_dir;
    for (const auto& [variant, files] : {std::pair{"baseline", &baseline}, {"patched", &patched}})
        write_snapshot(*files, work / variant);

    // LAVA boots whose guest did not report the device's counters (device-* test cases).
    std::vector<std::string> unchecked;
    // Interleaved, so a slow phase of the host hits both variants alike. A device with an
    // interrupt line boots once per wiring: each row has its own run directories.
    std::string wiring =
        has_line ? (options.interrupt == device::InterruptMode::wired ? "-irq" : "-noirq") : "";
    for (int boot = 1; boot <= options.boots; ++boot) {
        for (const char* variant : {"baseline", "patched"}) {
            GuestBenchmarkOptions bench;
            bench.device = device.driver;
            bench.tree = tree;
            bench.hz = options.hz;
            bench.driver_root = (work / variant).string();
            bench.extends = options.extends;
            bench.profile = run.profile;
            bench.interrupt = options.interrupt;
            bench.run_dir = (work / ("hz" + std::to_string(options.hz) + wiring + "-boot-" +
                                     std::to_string(boot) + "-" + variant))
                                .string();
            std::string tag = "HZ=" + std::to_string(options.hz) + interrupt_suffix(run) + " " +
                              variant + " boot " + std::to_string(boot) + "/" +
                              std::to_string(options.boots);
            bench.on_progress = [&](const std::string& what) {
                if (options.on_progress)
                    options.on_progress(tag + ": " + what);
            };
            LavaBootKey key = options.lava_key;
            key.device = device.driver;
            key.variant = variant;
            key.boot = boot;
            key.extends = options.extends;
            if (device.spec) {
                key.tpm.clear();
                key.operation = device.spec->operation.label();
                key.expect = device.spec->operation.expect;
            } else {
                key.tpm = device::to_string(device.tpm);
                key.pcr_bank = device.benchmark.pcr_bank;
            }
            if (options.lava_export) {
                GuestBenchmarkResult built;
                std::optional<GuestRunOptions> prepared = prepare_guest_run(bench, built);
                if (!prepared) {
                    level.status = LevelStatus::failed;
                    level.message = "cannot build the " + tag + " artifacts: " + built.error;
                    return run;
                }
                options.lava_export->add_boot(key, *prepared);
                continue;
            }
            if (options.lava_results) {
                bool counted = false;
                run.boots.push_back(options.lava_results->boot(key, &counted));
                run.boots.back().violations_measured = counted;
                if (!counted)
                    unchecked.push_back(run.boots.back().variant + " boot " +
                                        std::to_string(run.boots.back().boot));
                continue;
            }
            BootRun b;
            // Timing under TCG follows what else the host is doing: the reader gets to see it.
            if (double load[1]; getloadavg(load, 1) == 1)
                b.host_load = load[0];
            auto started = std::chrono::steady_clock::now();
            GuestBenchmarkResult result = run_guest_benchmark(bench);
            if (!result.error.empty()) {
                // It never booted (a module build failed): the next boot would fail the same way.
                level.status = LevelStatus::failed;
                level.message = "HZ=" + std::to_string(options.hz) + " " + variant + ": " +
                                result.error.substr(0, result.error.find('\n'));
                level.details.push_back(result.error);
                return run;
            }

            b.variant = variant;
            b.boot = boot;
            b.samples = result.run.report.samples;
            b.ok = result.ok;
            // The result's check: the PCR chain (a TPM) or every value read (a device file).
            b.pcr_passed = (result.run.pcr && result.run.pcr->passed) ||
                           (result.run.values && result.run.values->passed);
            b.measured_hz = result.run.report.measured_hz.value_or(0);
            // Build, initramfs, boot and benchmark: what one more boot costs the user.
            b.wall_seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            b.run_dir = result.run.run_dir.empty() ? bench.run_dir : result.run.run_dir;
            b.nice = result.run.nice;
            b.message = result.run.message;
            if (result.run.device) {
                b.violations = requirement_violations(*result.run.device);
            } else if (!result.run.stats.empty()) {
                b.ok = false;
                b.message += " (unreadable device stats)";
            }
            if (options.on_progress)
                options.on_progress(tag + ": " +
                                    (b.ok
                                         ? "ok, " + format_summary(summarize(b.samples))
                                         : "FAILED: " + b.message.substr(0, b.message.find('\n'))));
            run.boots.push_back(std::move(b));
        }
    }
    if (options.lava_export) {
        level.status = LevelStatus::skipped;
        level.message = std::to_string(2 * options.boots) + " LAVA jobs written to " +
                        options.lava_export->dir() + "/jobs (run them, then --lava-results)";
        return run;
    }
    summarize_device_run(run);
    judge_device_run(run, level);
    if (options.lava_results && !unchecked.empty()) {
        // A job that did not report the device's counters: nothing here says "none" for them.
        level.message += "; device requirements not checked in " +
                         std::to_string(unchecked.size()) + " of " +
                         std::to_string(run.boots.size()) +
                         " LAVA boots (no device-* test cases: the back end's counters were not "
                         "read in the guest)";
        for (const auto& boot : unchecked)
            level.details.push_back("LAVA results: " + boot +
                                    " reported no device counters; its violation figures are "
                                    "not measured");
    }
    return run;
}

} // namespace ksweep::validate
