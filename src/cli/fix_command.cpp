// ksweep fix: scan, plan and verify the fixes; print them as a unified diff, or write them
// with --in-place, never over uncommitted work unless --force.
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/rule_options.h"
#include "cli/tree_build.h"
#include "cli/tree_paths.h"
#include "core/rule.h"
#include "git/git_handle.h"
#include "rewrite/fixer.h"
#include "rewrite/loop_budget.h"
#include "rewrite/scanner.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace fs = std::filesystem;

namespace ksweep::cli {

namespace {

// The git repository the tree is in (the tree may be a subdirectory of it), or none.
git::Repository open_repository(const std::string& tree) {
    git_repository* raw = nullptr;
    if (git_repository_open_ext(&raw, tree.c_str(), 0, nullptr) != 0)
        return nullptr;
    return git::Repository(raw);
}

// Why a file must not be overwritten: it differs from HEAD or is not tracked at all. Empty
// when it is clean.
std::string uncommitted(git_repository* repo, const fs::path& file) {
    const char* workdir = git_repository_workdir(repo);
    if (!workdir)
        return "the repository has no work tree";
    std::error_code ec;
    const fs::path rel = fs::canonical(file, ec).lexically_relative(fs::canonical(workdir, ec));
    unsigned flags = 0;
    if (git_status_file(&flags, repo, rel.generic_string().c_str()) != 0)
        return "git status failed: " +
               std::string(git_error_last() ? git_error_last()->message : "");
    if (flags == GIT_STATUS_CURRENT)
        return "";
    if (flags & (GIT_STATUS_WT_NEW | GIT_STATUS_IGNORED))
        return "not tracked by git";
    return "has uncommitted changes";
}

// Replaces a file's content through a temporary file beside it, keeping its permissions, so a
// failure leaves either the old or the new text, never half of one.
void write_file(const fs::path& path, const std::string& text) {
    const fs::path tmp = path.string() + ".ksweep-tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush())
            throw std::runtime_error(tmp.string() + ": cannot write");
    }
    fs::permissions(tmp, fs::status(path).permissions());
    fs::rename(tmp, path);
}

// One line per target the fix wrote, with why: the subsystem's own helper where the rule
// names one the file sees, else the rule's target (settled from the tree when it is auto).
void print_targets(const FixResult& result, const std::string& auto_said) {
    struct Use {
        size_t sites = 0;
        std::set<std::string> files;
        std::string why;
    };
    std::map<std::string, Use> uses; // "tpm_msleep()", "usleep_range()", "fsleep()"
    for (const FileFix& f : result.files)
        for (const SiteOutcome& site : f.sites) {
            if (!site.fixed)
                continue;
            std::string target, why;
            if (f.helper && site.replacement.starts_with(f.helper->name + "(")) {
                target = f.helper->name + "()";
                why = "the subsystem's own millisecond sleep (" + f.helper->defined_at +
                      "), which the rule names for this path; --no-helpers writes the rule's "
                      "target instead";
            } else {
                target = site.replacement.starts_with("fsleep(") ? "fsleep()" : "usleep_range()";
                why = auto_said.empty() ? "the rule's target" : auto_said;
            }
            Use& use = uses[target];
            ++use.sites;
            use.files.insert(f.file);
            use.why = why;
        }
    for (const auto& [target, use] : uses)
        std::fprintf(stderr, "ksweep fix: %s for %zu site%s in %zu file%s: %s\n", target.c_str(),
                     use.sites, use.sites == 1 ? "" : "s", use.files.size(),
                     use.files.size() == 1 ? "" : "s", use.why.c_str());
}

// One line per site in a count-ended loop (or one not analysed): what the loop policy did and
// the budget before and after; then the counts.
void print_loops(const FixResult& result) {
    auto line = [&](const SiteOutcome& s) {
        const LoopOutcome& o = s.loop;
        if (o.policy.empty())
            return;
        const Finding& f = s.finding;
        std::string what;
        if (f.loop.count_ended())
            what = f.loop.statement + " loop of " +
                   (f.loop.tries ? std::to_string(*f.loop.tries) : f.loop.tries_text) + " tries";
        else
            what = "loop not analysed";
        if (o.policy == "iopoll")
            what += " -> " + o.helper + "(), timeout " + std::to_string(o.timeout_us) + " us (" +
                    o.timeout_why + ")";
        if (!f.loop.budget_ms_by_hz.empty() && !o.after_ms_by_hz.empty())
            what += "; budget " +
                    budget_change(f.loop.budget_ms_by_hz, o.after_ms_by_hz, result.scan.hz);
        if (!o.why.empty() && o.policy != "leave")
            what += "; " + o.why;
        std::fprintf(stderr, "  loop %s %s:%u: %s: %s\n", o.policy.c_str(), f.file.c_str(), f.line,
                     f.call.c_str(), what.c_str());
    };
    for (const FileFix& f : result.files)
        for (const SiteOutcome& s : f.sites)
            line(s);
    for (const SiteOutcome& s : result.skipped)
        if (s.loop.policy == "leave")
            line(s);
    if (const std::string summary = loop_policy_summary(count_loop_policies(result));
        !summary.empty())
        std::fprintf(stderr, "ksweep fix: %s\n", summary.c_str());
}

void print_summary(const FixResult& result, bool wrote) {
    size_t fixed = 0;
    for (const FileFix& f : result.files)
        fixed += f.sites.size();
    std::fprintf(stderr, "ksweep fix: %zu site%s %s in %zu file%s; %zu left alone.\n", fixed,
                 fixed == 1 ? "" : "s", wrote ? "fixed" : "to fix", result.files.size(),
                 result.files.size() == 1 ? "" : "s", result.skipped.size());
    for (const FileFix& f : result.files)
        if (f.slack_defined_here)
            std::fprintf(stderr, "  %s: %s = %lld us\n", f.file.c_str(), f.slack_name.c_str(),
                         f.slack_us);
    for (const SiteOutcome& s : result.skipped)
        std::fprintf(stderr, "  left alone %s:%u: %s: %s\n", s.finding.file.c_str(), s.finding.line,
                     s.finding.call.c_str(), s.reason.c_str());
    print_loops(result);
    for (const std::string& e : result.scan.errors)
        std::fprintf(stderr, "  note: %s\n", e.c_str());
}

} // namespace

int fix_command(int argc, char** argv) {
    RuleOptions rule_options;
    int jobs = 2;
    TreeBuildOptions tree_build;
    bool in_place = false, force = false, lexical_only = false;
    std::vector<std::string> positionals;
    ArgParser args("fix", "[options] TREE [PATH...]",
                   "Rewrites the short sleeps that `ksweep scan` finds under the PATHs of TREE\n"
                   "into usleep_range() with a named slack constant (or the rule's target), in\n"
                   "kernel style, each rule in turn, and verifies each file by scanning it again.\n"
                   "Prints a unified diff; writes the files only with --in-place.");
    rule_options.add_to(args);
    args.flag("--in-place", &in_place, "write the fixed files into TREE");
    args.flag("--force", &force,
              "with --in-place: write over uncommitted changes, or outside a git work tree");
    args.option("-j", &jobs, "N", "parallel jobs (default 2)");
    tree_build.add_to(args);
    args.flag("--lexical-only", &lexical_only, "skip the semantic engine");
    args.positionals(&positionals, 1);
    if (auto rc = args.parse(argc, argv))
        return *rc;
    if (jobs < 1) {
        std::fprintf(stderr, "ksweep fix: -j must be positive\n");
        return 2;
    }

    try {
        std::vector<Rule> rules = rule_options.load();
        ScanOptions options;
        options.tree = positionals[0];
        require_tree_top("fix", options.tree, {positionals.begin() + 1, positionals.end()});
        options.paths =
            tree_relative_paths(options.tree, {positionals.begin() + 1, positionals.end()});
        options.jobs = jobs;
        options.semantic = !lexical_only;

        // Refuse before the work: a tree outside git has no way back from --in-place.
        git::LibGit2 libgit2;
        git::Repository repo = open_repository(options.tree);
        if (in_place && !repo && !force) {
            std::fprintf(stderr,
                         "ksweep fix: %s is not in a git work tree: --in-place could not be "
                         "undone; add --force to write anyway\n",
                         options.tree.c_str());
            return 2;
        }

        TreeBuild build = resolve_tree_build("fix", options.tree, tree_build, !lexical_only);
        const std::string auto_said = RuleOptions::settle(
            rules, "fix", build.sources_of(options.tree), build.build.parse_dir(), false);
        options.build_dir = build.build.parse_dir();
        options.hz = build.hz.hz;
        Progress progress("scanning", Progress::mode_for_stderr());
        options.progress = [&](size_t done, size_t total) { progress.update(done, total); };
        const ScanResult scan = scan_tree(rules, options);
        progress.finish();
        options.progress = nullptr;
        const FixResult result = plan_fixes(rules, options, scan);

        if (!in_place) {
            std::fputs(unified_diff(result).c_str(), stdout);
            print_targets(result, auto_said);
            print_summary(result, false);
            return 0;
        }

        if (repo && !force) {
            bool refused = false;
            for (const FileFix& f : result.files) {
                const std::string why = uncommitted(repo.get(), fs::path(options.tree) / f.file);
                if (!why.empty()) {
                    std::fprintf(stderr, "ksweep fix: %s %s\n", f.file.c_str(), why.c_str());
                    refused = true;
                }
            }
            if (refused) {
                std::fprintf(stderr, "ksweep fix: nothing written; commit or stash those files, "
                                     "or add --force\n");
                return 2;
            }
        }
        for (const FileFix& f : result.files)
            write_file(fs::path(options.tree) / f.file, f.fixed);
        print_targets(result, auto_said);
        print_summary(result, true);
        return 0;
    } catch (const RuleError& e) {
        std::fprintf(stderr, "%s\n", e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ksweep fix: %s\n", e.what());
    }
    return 2;
}

} // namespace ksweep::cli
