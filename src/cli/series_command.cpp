// ksweep series: fix the tree on a new branch (never in the checkout) and write the result as
// a mailing-list-ready git format-patch series with a cover letter.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rule_options.h"
#include "cli/tree_build.h"
#include "cli/tree_paths.h"
#include "core/rule.h"
#include "git/scratch_prune.h"
#include "kbuild/sleep_api.h"
#include "rewrite/fixer.h"
#include "rewrite/scanner.h"
#include "rewrite/sleep_eval.h"
#include "series/series.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ksweep::cli {

using namespace ksweep::git;

namespace {

void print_result(const series::SeriesResult& r) {
    for (const auto& w : r.warnings)
        std::fprintf(stderr, "ksweep series: warning: %s\n", w.c_str());
    if (r.scratch)
        std::printf("The tree is not a git repository: commits are in the scratch repository\n"
                    "%s\n",
                    r.repository.c_str());
    if (r.pruned_branches > 0)
        std::printf("pruned %zu old ksweep branch%s in the scratch repository (keeping %zu)\n",
                    r.pruned_branches, r.pruned_branches == 1 ? "" : "es",
                    git::kScratchBranchesKept);
    for (const auto& s : r.series) {
        std::printf("\nseries %s (change-id %s): branch %s (base %s), %zu patch%s in %s/\n",
                    s.name.c_str(), s.change_id.c_str(), s.branch.c_str(),
                    s.base.substr(0, 12).c_str(), s.subjects.size(),
                    s.subjects.size() == 1 ? "" : "es", s.dir.c_str());
        for (const auto& f : s.files)
            std::printf("  %s\n", fs::path(f).filename().c_str());
        std::printf("recipients: %zu To, %zu Cc in all\n", s.to.size(), s.cc.size());
    }
    for (const auto& f : r.index.finished)
        std::printf("\nfinished: %s (change-id %s): %s\n", f.name.c_str(), f.change_id.c_str(),
                    f.why.c_str());
    size_t patches = 0;
    for (const auto& s : r.series)
        patches += s.subjects.size();
    std::printf("\n%zu series, %zu patches; %zu left alone; index: %s (and index.md)\n",
                r.series.size(), patches, r.index.left_alone.size(), r.index_path.c_str());
}

// One line on what the tree's sources say about its sleep functions (the messages quote it),
// and a line for each fact they do not state.
void print_sleep_api(const kbuild::SleepApi& api) {
    auto at = [](const std::string& source) { return source.empty() ? "" : " (" + source + ")"; };
    std::string line =
        std::string("fsleep ") + kbuild::to_string(api.fsleep) + at(api.fsleep_source);
    if (api.msleep_extra_jiffy)
        line += std::string(", msleep ") + (*api.msleep_extra_jiffy ? "adds" : "adds no") +
                " extra jiffy" + at(api.msleep_source);
    line += ", timers document " + (api.timers_doc.empty() ? "none" : api.timers_doc);
    std::fprintf(stderr, "ksweep series: tree: %s\n", line.c_str());
    for (const auto* note : {&api.fsleep_note, &api.msleep_note, &api.timers_doc_note})
        if (!note->empty())
            std::fprintf(stderr, "ksweep series: note: %s\n", note->c_str());
}

// --plan: one row per patch, what decides where it goes (Markdown, for people).
void print_plan(const series::SweepIndex& index) {
    std::printf("| series | patch | files | entry | tree | recipients | prefix from |\n"
                "|---|---|---|---|---|---|---|\n");
    auto joined = [](const std::vector<std::string>& v) {
        std::string out;
        for (const auto& x : v)
            out += (out.empty() ? "" : ", ") + x;
        return out;
    };
    for (const auto& s : index.series)
        for (const auto& p : s.patches) {
            std::vector<std::string> all = p.to;
            all.insert(all.end(), p.cc.begin(), p.cc.end());
            std::printf("| %s | %s | %s | %s | %s | %s | %s |\n", s.name.c_str(), p.subject.c_str(),
                        joined(p.files).c_str(), s.entry.c_str(),
                        (s.tree.empty() ? "(none: " + s.tree_key + ")" : s.tree).c_str(),
                        joined(all).c_str(), p.prefix_source.c_str());
        }
    for (const auto& f : index.finished)
        std::printf("\nfinished: %s: %s\n", f.name.c_str(), f.why.c_str());
    std::printf("\n%zu series; %zu left alone. --plan writes nothing.\n", index.series.size(),
                index.left_alone.size());
}

// A file an earlier rule's sweep of this run changes is left to a later run: its sites go to
// `skipped`, with the reason.
void leave_taken_files(FixResult& fix, const std::map<std::string, std::string>& taken) {
    std::vector<FileFix> kept;
    for (FileFix& f : fix.files) {
        auto by = taken.find(f.file);
        if (by == taken.end()) {
            kept.push_back(std::move(f));
            continue;
        }
        for (SiteOutcome site : f.sites) {
            site.fixed = false;
            site.reason = "the file is in this run's " + by->second +
                          " series; run ksweep series again once that series is applied";
            fix.skipped.push_back(std::move(site));
        }
    }
    fix.files = std::move(kept);
}

// What to do with the series: read them, prove them, send them.
void print_next(const std::vector<series::SeriesResult>& results, const std::string& tree) {
    std::vector<std::string> dirs;
    for (const auto& r : results)
        for (const auto& s : r.series)
            dirs.push_back(s.dir);
    if (dirs.empty())
        return;
    std::printf("\nnext: read the mails, prove each series, then send it (To/Cc are in each "
                "mail):\n");
    for (const std::string& dir : dirs)
        std::printf("  ksweep validate --series %s -o %s-report %s\n"
                    "  git send-email --dry-run %s/*.patch\n",
                    dir.c_str(), dir.c_str(), tree.c_str(), dir.c_str());
}

} // namespace

int series_command(int argc, char** argv) {
    RuleOptions rule_options;
    std::string out_dir, group = "driver", signoff, report, branch, cache_dir;
    TreeBuildOptions tree_build;
    int reroll = 0, jobs = 2, max_patches = 15;
    bool force = false, no_thread = false, plan = false;
    std::vector<std::string> positionals;
    ArgParser args("series", "[options] TREE [PATH...]",
                   "Fixes the rule's sites under the PATHs of TREE on new branches\n"
                   "(ksweep/<rule>-<YYYYMMDD>[-<series>]) and writes git format-patch mails: one\n"
                   "patch per driver, one series per maintainer tree (MAINTAINERS T:) split into\n"
                   "parts of at most --max-patches, subject prefixes from history, the table or\n"
                   "MAINTAINERS, To/Cc from MAINTAINERS, cover letters, base-commit; an index\n"
                   "(index.json, index.md) that a later run into the same -o DIR continues. The\n"
                   "checkout, index and current branch are not touched; a tree outside git gets\n"
                   "a cached scratch repository. Several rules (the default: every shipped rule)\n"
                   "are one sweep each, in order: -o DIR holds the first rule's, DIR/<rule>/ each\n"
                   "other's; a file an earlier rule changes is left to the next run of a later\n"
                   "one, so no two series of a run touch the same file.");
    rule_options.add_to(args);
    args.option("-o", &out_dir, "DIR", "output directory (default: patches/<branch>)");
    args.option("-v", &reroll, "N",
                "version of the series: [PATCH vN ...]; a series of an earlier run gets\n"
                "\"Changes in vN\" in its cover letter");
    args.option("--max-patches", &max_patches, "N",
                "patches per series (default 15: submitting-patches.rst's \"15 or so\")");
    args.option("--group", &group, "driver|file|dir|maintainer",
                "what one patch holds (default: driver, a module or a file)");
    bool signoff_given = false;
    args.flag_with_value("--signoff", &signoff_given, &signoff, "NAME <EMAIL>",
                         "author and Signed-off-by: git config user.name/user.email, as git's "
                         "--signoff (the default), or --signoff=\"NAME <EMAIL>\"",
                         [](const std::string& next) {
                             // The older spelling, --signoff "NAME <EMAIL>": never a path.
                             return next.find('<') != std::string::npos &&
                                    next.find('@') != std::string::npos && next.ends_with('>');
                         });
    args.option("--report", &report, "FILE", "validation report JSON (docs/report-json.md)");
    args.option("--branch", &branch, "NAME", "branch name (-2, -3 appended when taken)");
    args.option("-j", &jobs, "N", "parallel scan jobs (default 2)");
    tree_build.add_to(args);
    args.option("--cache", &cache_dir, "DIR", "scratch repositories (default ~/.cache/ksweep)");
    args.flag("--force", &force, "replace the patches in a non-empty output directory");
    args.flag("--no-thread", &no_thread, "no Message-Id/In-Reply-To headers");
    args.flag("--plan", &plan,
              "print each patch's series, files, MAINTAINERS entry, tree, recipients and\n"
              "prefix source; write nothing");
    args.positionals(&positionals, 1);
    if (auto rc = args.parse(argc, argv))
        return *rc;
    auto group_by = series::parse_group_by(group);
    if (!group_by) {
        std::fprintf(stderr, "ksweep series: --group must be driver, file, dir or maintainer\n");
        return 2;
    }
    for (const auto& [bad, what] : {std::pair{jobs < 1, "-j must be 1 or more"},
                                    std::pair{reroll < 0, "-v must be 0 or more"},
                                    std::pair{max_patches < 1, "--max-patches must be 1 or more"}})
        if (bad) {
            std::fprintf(stderr, "ksweep series: %s\n", what);
            return 2;
        }
    try {
        std::vector<Rule> rules = rule_options.load();
        ScanOptions scan;
        scan.tree = positionals[0];
        require_tree_top("series", scan.tree, {positionals.begin() + 1, positionals.end()});
        scan.paths = tree_relative_paths(scan.tree, {positionals.begin() + 1, positionals.end()});
        TreeBuild build = resolve_tree_build("series", scan.tree, tree_build);
        RuleOptions::settle(rules, "series", build.sources_of(scan.tree), build.build.parse_dir());
        scan.build_dir = build.build.parse_dir();
        scan.hz = build.hz.hz;
        scan.jobs = jobs;
        // A live line on a terminal; plain lines in a log, where a whole-tree run is watched.
        const auto mode = isatty(STDERR_FILENO) ? Progress::Mode::Live : Progress::Mode::Lines;
        // Where each sweep's time goes, one line on stderr at its end.
        using Clock = std::chrono::steady_clock;
        const auto since = [](Clock::time_point t) {
            return std::chrono::duration<double>(Clock::now() - t).count();
        };

        series::SeriesOptions options;
        options.tree = scan.tree;
        options.hz_label = build.hz.label;
        options.sleep_api = evaluated_sleep_api(build.sources_of(scan.tree), scan.build_dir);
        print_sleep_api(*options.sleep_api);
        options.force = force;
        options.reroll = reroll;
        options.group = *group_by;
        options.signoff = signoff;
        options.report = report;
        options.branch = branch;
        options.cache_dir = cache_dir;
        options.signature = std::string("ksweep ") + KSWEEP_VERSION;
        options.thread = !no_thread;
        options.max_patches = static_cast<size_t>(max_patches);
        options.plan_only = plan;
        // The reproducible-builds convention: a fixed date makes two runs write the same mails.
        if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH"))
            options.now = std::stoll(epoch);

        // One sweep per rule: a series is one logical change. The files an earlier rule's
        // sweep changes wait for a later run of the next rule, so no two series of one run
        // touch the same file (each applies to the same base, in any order).
        std::map<std::string, std::string> taken; // file -> the rule whose series changes it
        std::vector<series::SeriesResult> results;
        for (size_t r = 0; r < rules.size(); ++r) {
            const Rule& rule = rules[r];
            const std::string named = rules.size() > 1 ? rule.name + ": " : "";
            Progress progress("scanning (" + rule.name + ")", mode);
            scan.progress = [&](size_t done, size_t total) { progress.update(done, total); };
            const auto started = Clock::now();
            ScanResult found = scan_tree(rule, scan);
            progress.finish();
            const double scan_seconds = since(started);
            const auto fixing = Clock::now();
            FixResult fix = plan_fixes(rule, scan, found);
            const double fix_seconds = since(fixing);
            leave_taken_files(fix, taken);
            for (const auto& f : fix.files)
                taken.emplace(f.file, rule.name);
            for (const auto& s : fix.skipped)
                std::fprintf(stderr, "ksweep series: %sleft alone: %s:%u: %s\n", named.c_str(),
                             s.finding.file.c_str(), s.finding.line, s.reason.c_str());
            if (const std::string loops = loop_policy_summary(count_loop_policies(fix));
                !loops.empty())
                std::fprintf(stderr, "ksweep series: %s%s\n", named.c_str(), loops.c_str());
            if (fix.files.empty()) {
                std::printf("%sNothing to fix under the given paths: no series written.\n",
                            named.c_str());
                continue;
            }
            options.out_dir = out_dir.empty() || r == 0 ? out_dir : out_dir + "/" + rule.name;
            Progress writing("writing series", plan ? Progress::Mode::Off : mode);
            options.progress = [&](size_t done, size_t total, const std::string& series) {
                writing.update(done, total, series);
            };
            const auto writing_started = Clock::now();
            series::SeriesResult result = series::write_series(rule, fix, options);
            writing.finish();
            const double write_seconds = since(writing_started);
            std::fprintf(stderr,
                         "ksweep series: time: %sscan %.1f s, fix %.1f s, repository %.1f s, "
                         "commits and mails %.1f s, packing %.1f s; %.1f s in all\n",
                         named.c_str(), scan_seconds, fix_seconds, result.repository_seconds,
                         write_seconds - result.repository_seconds - result.pack_seconds,
                         result.pack_seconds, since(started));
            for (const auto& note : result.prefix_notes)
                std::fprintf(stderr, "ksweep series: %s\n", note.c_str());
            if (rules.size() > 1)
                std::printf("%srule %s:\n", results.empty() ? "" : "\n", rule.name.c_str());
            if (plan)
                print_plan(result.index);
            else
                print_result(result);
            results.push_back(std::move(result));
        }
        if (!plan)
            print_next(results, scan.tree);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "ksweep series: %s\n", e.what());
    } catch (const RuleError& e) {
        std::fprintf(stderr, "%s\n", e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ksweep series: %s\n", e.what());
    }
    return 2;
}

} // namespace ksweep::cli
