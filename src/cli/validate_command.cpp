// ksweep validate: prove each patch of a series (L1 git am, L2 checkpatch.pl --strict, L3 module
// builds, L4 QEMU boots with the emulated device) and write the report (md, json, svg).
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/tree_build.h"
#include "cli/tree_paths.h"
#include "core/file_io.h"
#include "guest/guest_config.h"
#include "series/sweep_index.h"
#include "validate/report_render.h"
#include "validate/validate_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>

namespace ksweep::cli {

namespace {

// "1,2,3" or "1-3" -> {1,2,3}; nullopt for anything else.
std::optional<std::vector<int>> parse_levels(const std::string& text) {
    std::vector<int> levels;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) {
        int from = 0, to = 0;
        char dash = 0;
        std::istringstream p(part);
        if (!(p >> from))
            return std::nullopt;
        to = from;
        if (p >> dash && (dash != '-' || !(p >> to)))
            return std::nullopt;
        if (from < 1 || to > 4 || from > to)
            return std::nullopt;
        for (int l = from; l <= to; ++l)
            levels.push_back(l);
    }
    if (levels.empty())
        return std::nullopt;
    return levels;
}

// "250,1000" -> {250, 1000}: the L4 guests' HZ, each one x86's Kconfig offers, none twice.
std::optional<std::vector<int>> parse_hz_list(const std::string& text) {
    std::vector<int> list;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) {
        std::istringstream p(part);
        int hz = 0;
        char extra = 0;
        if (!(p >> hz) || p >> extra || !guest::is_supported_hz(hz) ||
            std::find(list.begin(), list.end(), hz) != list.end())
            return std::nullopt;
        list.push_back(hz);
    }
    if (list.empty())
        return std::nullopt;
    return list;
}

// "wired,none" -> the L4 wirings of a chip's interrupt line, each once.
std::optional<std::vector<device::InterruptMode>> parse_interrupt_list(const std::string& text) {
    std::vector<device::InterruptMode> list;
    std::istringstream in(text);
    for (std::string part; std::getline(in, part, ',');) {
        auto mode = device::parse_interrupt_mode(part);
        if (!mode || std::find(list.begin(), list.end(), *mode) != list.end())
            return std::nullopt;
        list.push_back(*mode);
    }
    if (list.empty())
        return std::nullopt;
    return list;
}

// What to do after the report: the figures into the mails and send them, or what failed.
void print_next(const validate::ValidationReport& report, const validate::ReportFiles& files,
                const std::string& series_dir, const std::string& tree) {
    if (!report.passed()) {
        std::printf("next: read %s (each failed level says why), fix or drop the patch, then run "
                    "ksweep validate again\n",
                    files.markdown.c_str());
        return;
    }
    if (series_dir.empty()) {
        std::printf("next: the commits passed; send them with git format-patch and git "
                    "send-email\n");
        return;
    }
    std::printf("next: put the measured figures into the mails (the run that wrote them, with "
                "--report %s), then send them:\n"
                "  ksweep series --report %s -o <its -o DIR> %s <its PATHs>\n"
                "  git send-email --dry-run %s/*.patch\n",
                files.json.c_str(), files.json.c_str(), tree.c_str(), series_dir.c_str());
}

namespace fs = std::filesystem;

// A report's levels as the sweep index counts them.
series::SeriesValidation counts_of(const validate::ValidationReport& report,
                                   const std::string& report_dir) {
    series::SeriesValidation v;
    v.report = report_dir;
    v.passed = report.passed();
    v.patches = report.patches.size();
    for (const auto& patch : report.patches)
        for (size_t l = 0; l < v.levels.size(); ++l) {
            validate::LevelStatus status = patch.levels[l].status;
            auto& c = v.levels[l];
            (status == validate::LevelStatus::passed   ? c.passed
             : status == validate::LevelStatus::failed ? c.failed
                                                       : c.other) += 1;
        }
    if (!report.errors.empty())
        v.error = report.errors.front();
    return v;
}

// `--series OUT` on a sweep's output folder (`ksweep series -o OUT`: a folder per series and
// index.json): every series validated in turn, its report in OUT_REPORTS/<series>/, and the
// sweep's index.json and index.md gain each series' levels and how many patches L4 proved.
int validate_sweep(validate::ValidateOptions options, const std::string& sweep,
                   const std::string& out_dir) {
    const fs::path index_path = fs::path(sweep) / "index.json";
    series::SweepIndex index;
    try {
        index = series::load_index(index_path.string());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ksweep validate: %s\n", e.what());
        return 2;
    }
    // A name from the index becomes a path: one plain folder name, never a way out of OUT.
    static const std::regex kSeriesName("[A-Za-z0-9][A-Za-z0-9._-]*");
    const std::string work = options.work_dir;
    bool all_passed = true;
    size_t patches = 0, proven = 0;
    for (size_t i = 0; i < index.series.size(); ++i) {
        series::IndexSeries& s = index.series[i];
        const std::string tag = "series " + std::to_string(i + 1) + "/" +
                                std::to_string(index.series.size()) + " " + s.name;
        fs::path dir = fs::path(sweep) / s.name;
        if (!std::regex_match(s.name, kSeriesName) || s.name.find("..") != std::string::npos ||
            !fs::is_directory(dir)) {
            s.validation = series::SeriesValidation{};
            s.validation->error = "no series folder '" + s.name + "' in " + sweep;
            std::fprintf(stderr, "ksweep validate: %s: %s\n", tag.c_str(),
                         s.validation->error.c_str());
            all_passed = false;
            continue;
        }
        if (options.on_progress)
            options.on_progress(tag + " (" + std::to_string(s.patches.size()) + " patches)");
        options.series_dir = dir.string();
        options.work_dir = work.empty() ? "" : (fs::path(work) / s.name).string();
        validate::ValidationReport report = validate::run_validation(options);
        const fs::path report_dir = fs::path(out_dir) / s.name;
        validate::write_report_files(report, report_dir.string());
        fs::path shown = fs::absolute(report_dir).lexically_relative(fs::absolute(sweep));
        s.validation = counts_of(report, shown.empty() ? report_dir.string() : shown.string());
        all_passed = all_passed && report.passed();
        patches += s.validation->patches;
        proven += s.validation->proven();
        std::printf("%s: %s, L4 proved %zu of %zu patches (report %s/report.md)\n", tag.c_str(),
                    report.passed() ? "PASSED" : "FAILED", s.validation->proven(),
                    s.validation->patches, report_dir.string().c_str());
        std::fputs(validate::render_level_lines(report, "  ").c_str(), stdout);
    }
    std::ofstream(index_path) << series::render_index_json(index);
    std::ofstream(fs::path(sweep) / "index.md") << series::render_index_markdown(index);
    std::printf("%s: %zu series, %zu patches, %zu proven at L4; the sweep's index %s has each "
                "series' levels\n",
                all_passed ? "PASSED" : "FAILED", index.series.size(), patches, proven,
                index_path.string().c_str());
    return all_passed ? 0 : 1;
}

} // namespace

int validate_command(int argc, char** argv) {
    std::string series_dir, git_range, levels_text = "1,2,3,4", profile,
                                       out_dir = "validate-report", work_dir, hz_text, guest_tree,
                                       interrupt_text;
    TreeBuildOptions tree_build;
    int boots = 2, extends = 200;
    bool keep_work = false;
    std::vector<std::string> positionals;
    ArgParser parser(
        "validate", "[--series DIR | --git RANGE] [options] TREE",
        "Validate every patch of a series against the kernel TREE and write a report:\n"
        "  L1  the patch applies with git am on its base (in a scratch clone, never TREE)\n"
        "  L2  TREE's scripts/checkpatch.pl --strict reports nothing\n"
        "  L3  every module it touches builds in the tree's own build dir (found, or prepared\n"
        "      by ksweep: see --build-dir), baseline and patched, with no new warning (a\n"
        "      driver the config does not enable: not built)\n"
        "  L4  drivers with a device model boot in QEMU on a kernel built from TREE (one per\n"
        "      --guest-hz), baseline and patched alternately;\n"
        "      every extend succeeds, the PCR check passes, no device requirement is broken\n"
        "      and the patched driver is not slower (slower: the 95 % bootstrap interval of\n"
        "      the median ratio lies wholly above 1.10x)\n"
        "Writes DIR/report.md, report.json (docs/report-json.md) and an SVG per driver.\n"
        "Exit status: 0 all passed, 1 a level failed (or a slowdown, a broken requirement),\n"
        "2 bad usage.");
    parser.option("--series", &series_dir, "DIR",
                  "a directory of git format-patch mails, or a sweep's output folder\n"
                  "(`ksweep series -o DIR`, with index.json): every series in it, a report\n"
                  "each in the -o DIR's <series>/, and DIR's index gains their levels");
    parser.option("--git", &git_range, "RANGE", "commits A..B of TREE's repository instead");
    parser.option("--levels", &levels_text, "LIST", "levels to run, e.g. 1,2,3 (default 1,2,3,4)");
    parser.option("--boots", &boots, "N", "L4 boots per variant, interleaved (default 2)");
    parser.option("-n", &extends, "EXTENDS", "L4 PCR extends per boot (default 200)");
    parser.option("--profile", &profile, "FILE", "device profile instead of the model's default");
    parser.option("--guest-hz", &hz_text, "LIST",
                  "L4 guest kernels' HZ, e.g. 250,1000: each its own build of TREE, its own "
                  "boots and row in the report (default: CONFIG_HZ of the build dir, else 250)");
    parser.deprecated("--hz", "--guest-hz",
                      "the guest kernels' HZ; --hz is the sleep model's HZ in scan, fix, series "
                      "and check");
    parser.option("--interrupt", &interrupt_text, "LIST",
                  "L4 wirings of a chip's interrupt line (the cr50's), e.g. wired,none: each its\n"
                  "own boots and row (default: as boards wire it, qemu/devices.yaml)");
    parser.option("--guest-tree", &guest_tree, "DIR",
                  "whole kernel tree the L4 guest kernel is built from (default: TREE; give it\n"
                  "when TREE is a sparse checkout of it)");
    parser.option("-o", &out_dir, "DIR", "report directory (default ./validate-report)");
    tree_build.add_to(parser, false);
    parser.option("--work-dir", &work_dir, "DIR", "keep scratch clone and boot logs here");
    parser.flag("--keep-work", &keep_work, "keep the temporary work directory (boot logs)");
    std::string lava_dir, lava_url, lava_results;
    parser.option("--lava", &lava_dir, "DIR",
                  "L4 as LAVA jobs: write one job per boot, its artifacts and manifest.json "
                  "into DIR instead of booting (README: In a lab)");
    parser.option("--lava-artifacts-url", &lava_url, "URL",
                  "where the lab fetches DIR/artifacts from (default file://DIR/artifacts)");
    parser.option("--lava-results", &lava_results, "DIR[,DIR...]",
                  "L4 from LAVA: the boots' results (lava-run output or lava-server export)");
    parser.positionals(&positionals, 0); // TREE missing is said below, naming it
    if (auto exit = parser.parse(argc, argv))
        return *exit;

    // Bad usage: exit 2 naming the option, before anything is read or built.
    auto usage = [](const std::string& what) {
        std::fprintf(stderr, "ksweep validate: %s (see --help)\n", what.c_str());
        return 2;
    };
    auto levels = parse_levels(levels_text);
    if (!levels)
        return usage("--levels " + levels_text + ": a list of levels 1 to 4, e.g. 1,2,3 or 1-3");
    std::optional<std::vector<int>> hz_list = std::vector<int>{};
    if (!hz_text.empty() && !(hz_list = parse_hz_list(hz_text)))
        return usage("--guest-hz " + hz_text +
                     ": a list of 100, 250, 300, 1000 (each once), e.g. 250,1000");
    std::optional<std::vector<device::InterruptMode>> interrupts =
        std::vector<device::InterruptMode>{};
    if (!interrupt_text.empty() && !(interrupts = parse_interrupt_list(interrupt_text)))
        return usage("--interrupt " + interrupt_text +
                     ": a list of wired and none (each once), e.g. wired,none");
    if (boots < 1 || boots > 50)
        return usage("--boots " + std::to_string(boots) + ": 1 to 50");
    if (extends < 1 || extends > 100000)
        return usage("-n " + std::to_string(extends) + ": 1 to 100000");
    if (series_dir.empty() == git_range.empty())
        return usage(series_dir.empty() ? "give the series: --series DIR or --git RANGE"
                                        : "--series and --git exclude each other");
    std::error_code ec;
    if (!series_dir.empty() && !std::filesystem::is_directory(series_dir, ec))
        return usage("--series " + series_dir + ": no such directory");
    if (positionals.empty())
        return usage("TREE missing: the kernel tree the series applies to");
    if (positionals.size() > 1)
        return usage("one TREE, not " + std::to_string(positionals.size()) + " (" +
                     positionals.back() + " too)");
    try {
        require_tree_top("validate", positionals[0], {}, false);
    } catch (const UsageError& e) {
        return usage(e.what());
    }

    validate::ValidateOptions options;
    options.tree = positionals[0];
    options.series_dir = series_dir;
    options.git_range = git_range;
    options.levels = *levels;
    options.boots = boots;
    options.extends = static_cast<std::uint32_t>(extends);
    options.profile = profile;
    options.hz = *hz_list;
    options.interrupts = *interrupts;
    options.guest_tree = guest_tree;
    const bool builds = std::any_of(options.levels.begin(), options.levels.end(),
                                    [](int level) { return level >= 3; });
    try {
        // Only L3 and L4 build: L1/L2 alone never prepare a build dir.
        TreeBuild build = resolve_tree_build("validate", options.tree, tree_build, builds);
        options.headers_dir = build.build.dir;
        options.build_dir_note = kbuild::describe(build.build, build.hz);
        options.config_hz_label = build.hz.label;
    } catch (const kbuild::BuildDirError& e) {
        std::fprintf(stderr, "ksweep validate: %s\n", e.what());
        return 2;
    }
    if (!lava_dir.empty() && !lava_results.empty())
        return usage("--lava and --lava-results exclude each other");
    if ((!lava_dir.empty() || !lava_results.empty()) && series_dir.empty())
        return usage(std::string(lava_dir.empty() ? "--lava-results" : "--lava") +
                     " needs --series");
    // A lab's ksweep-tpmd serves its model's default profile: an override would not reach it.
    if ((!lava_dir.empty() || !lava_results.empty()) && !profile.empty())
        return usage("--profile does not reach a lab: leave it out with --lava/--lava-results");
    options.lava_dir = lava_dir;
    options.lava_artifacts_url = lava_url;
    for (std::istringstream in(lava_results); std::getline(in, lava_results, ',');)
        options.lava_results.push_back(lava_results);
    options.work_dir = work_dir;
    options.keep_work = keep_work;
    const bool sweep = !series_dir.empty() && fs::exists(fs::path(series_dir) / "index.json");
    if (sweep && (!lava_dir.empty() || !options.lava_results.empty())) {
        std::fprintf(stderr,
                     "ksweep validate: --lava and --lava-results take one series folder, "
                     "not a sweep's output (%s has index.json): give --series "
                     "%s/<series>\n",
                     series_dir.c_str(), series_dir.c_str());
        return 2;
    }
    auto start = std::chrono::steady_clock::now();
    options.on_progress = [start](const std::string& what) {
        static const std::regex kExtendCount(R"(: extend [0-9]+/[0-9]+$)");
        if (std::regex_search(what, kExtendCount))
            return; // one line per extend is noise in a log
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::fprintf(stderr, "[%6.1fs] %s\n", s, what.c_str());
    };

    if (sweep)
        return validate_sweep(options, series_dir, out_dir);
    validate::ValidationReport report = validate::run_validation(options);
    validate::ReportFiles files;
    try {
        files = validate::write_report_files(report, out_dir);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ksweep validate: cannot write the report: %s\n", e.what());
        return 1;
    }

    if (!report.work_dir_kept.empty())
        std::fprintf(stderr, "ksweep validate: work kept in %s (checkout, logs)\n",
                     report.work_dir_kept.c_str());
    std::fputs(validate::render_level_lines(report, "").c_str(), stdout);
    std::printf("%s: report %s, %s", report.passed() ? "PASSED" : "FAILED", files.markdown.c_str(),
                files.json.c_str());
    for (const auto& chart : files.charts)
        std::printf(", %s", chart.c_str());
    std::printf("\n");
    print_next(report, files, series_dir, options.tree);
    return report.passed() ? 0 : 1;
}

} // namespace ksweep::cli
