// plan_fixes: per file, plan the edits from the scan's findings, refuse overlapping groups,
// apply them in memory and verify the result; -j files at a time.
#include "rewrite/fixer.h"

#include "core/file_io.h"
#include "core/parallel.h"
#include "rewrite/applier.h"
#include "rewrite/fix_verify.h"
#include "rewrite/loop_budget.h"
#include "rewrite/macro_uses.h"
#include "rewrite/planner.h"
#include "rewrite/sleep_eval.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

// Sites a reader would expect the fixer to look at: the rule's calls that are actionable, or
// look like they might be (msleep(0), unresolved arguments).
bool worth_a_look(const Rule& rule, const Finding& f) {
    return rule.is_rule_function(f.callee) && (f.rule.empty() || f.rule == rule.name) &&
           (f.actionable || !f.value || *f.value == 0);
}

const char* const kOverlap = "its edits overlap another site's";

struct FileWork {
    std::string path;
    std::vector<Finding> findings; // the scan's, every rule's
    std::optional<FileFix> fix;
    std::vector<SiteOutcome> skipped;
};

std::vector<Finding> worth_a_look(const Rule& rule, const std::vector<Finding>& findings) {
    std::vector<Finding> out;
    for (const Finding& f : findings)
        if (worth_a_look(rule, f))
            out.push_back(f);
    return out;
}

// A finding of a re-scan, at its place in the scanned text: the same call (rule and text)
// counted in order, so that lines stay those of the file as it is in the tree.
Finding as_scanned(const Finding& rescanned, const std::vector<Finding>& rescan,
                   const std::vector<Finding>& scanned) {
    auto same = [&](const Finding& f) {
        return f.rule == rescanned.rule && f.call == rescanned.call;
    };
    size_t ordinal = 0;
    for (const Finding& f : rescan) {
        if (f.call_begin == rescanned.call_begin)
            break;
        ordinal += same(f);
    }
    for (const Finding& f : scanned)
        if (same(f) && ordinal-- == 0)
            return f;
    return rescanned;
}

// Each rule in turn on the text the rules before it left: the first from the scan's findings,
// the next ones from a re-scan of the text as it now is. A rule whose fix fails verification
// leaves the text as it found it.
void fix_and_verify(const std::vector<Rule>& rules, const ScanOptions& options,
                    const ScanResult& scan, FileWork& work) {
    const auto text = read_file(fs::path(options.tree) / work.path);
    if (!text) {
        for (const Finding& f : work.findings)
            work.skipped.push_back({f, false, "", "cannot read " + work.path, "", {}});
        return;
    }
    FileFix merged;
    merged.file = work.path;
    merged.original = merged.fixed = *text;
    for (const Rule& rule : rules) {
        ScanResult before; // this file's part of the scan, as the verification needs it
        before.hz = scan.hz;
        before.kernel = scan.kernel;
        before.extra_jiffy = scan.extra_jiffy;
        before.build_dir = scan.build_dir;
        before.preamble_dir = scan.preamble_dir;
        before.parse_dir = scan.parse_dir;
        before.findings = merged.fixed == *text
                              ? work.findings
                              : scan_buffer(rule, options, work.path, merged.fixed).findings;
        const std::vector<Finding> findings = worth_a_look(rule, before.findings);
        if (findings.empty())
            continue;
        std::vector<SiteOutcome> skipped;
        FileFix fix = fix_file_text(
            rule, work.path, merged.fixed, findings, skipped,
            [&](const std::string& rel) { return read_file(fs::path(options.tree) / rel); },
            &tree_sleeps(options.tree, scan.build_dir), scan.hz);
        const bool overlapped = std::any_of(skipped.begin(), skipped.end(),
                                            [](const auto& s) { return s.reason == kOverlap; });
        if (merged.fixed != *text) {
            for (SiteOutcome& site : skipped)
                site.finding = as_scanned(site.finding, before.findings, work.findings);
            for (SiteOutcome& site : fix.sites)
                site.finding = as_scanned(site.finding, before.findings, work.findings);
        }
        work.skipped.insert(work.skipped.end(), skipped.begin(), skipped.end());
        if (fix.fixed == fix.original)
            continue;
        if (auto failure = verify_fix(rule, options, before, fix, !overlapped)) {
            for (const SiteOutcome& s : fix.sites)
                work.skipped.push_back(
                    {s.finding, false, "", "verification failed: " + *failure, "", {}});
            continue;
        }
        merged.fixed = fix.fixed;
        merged.sites.insert(merged.sites.end(), fix.sites.begin(), fix.sites.end());
        if (merged.slack_name.empty() || fix.slack_defined_here) {
            merged.slack_name = fix.slack_name;
            merged.slack_us = fix.slack_us;
        }
        merged.slack_defined_here = merged.slack_defined_here || fix.slack_defined_here;
        if (fix.helper)
            merged.helper = fix.helper;
    }
    if (merged.fixed != merged.original)
        work.fix = std::move(merged);
}

} // namespace

FileFix fix_file_text(const Rule& rule, const std::string& path, const std::string& text,
                      const std::vector<Finding>& findings, std::vector<SiteOutcome>& skipped,
                      const ReadTreeFile& read, TreeSleeps* sleeps, int hz) {
    FileFix fix;
    fix.file = path;
    fix.original = text;
    fix.fixed = text;

    const FileIndex index(text);
    const std::optional<SleepHelper> helper =
        read ? find_sleep_helper(rule.helpers_for(path), path, text, read) : std::nullopt;
    FilePlan plan = plan_file(rule, path, text, index, findings, helper, LoopContext{sleeps, hz});
    for (SiteOutcome& s : plan.skipped)
        skipped.push_back(std::move(s));
    const std::vector<bool> accepted = accept_groups(plan.groups);
    for (size_t i = 0; i < plan.groups.size(); ++i)
        for (const Finding& f : plan.groups[i].findings) {
            if (!accepted[i]) {
                skipped.push_back({f, false, "", kOverlap, "", {}});
                continue;
            }
            const auto& calls = plan.groups[i].calls;
            const auto call = calls.find(f.call_begin);
            SiteOutcome site{
                f, true, plan.groups[i].how, "", call == calls.end() ? "" : call->second, {}};
            if (auto loop = plan.groups[i].loops.find(f.call_begin);
                loop != plan.groups[i].loops.end())
                site.loop = loop->second;
            fix.sites.push_back(std::move(site));
        }
    if (fix.sites.empty())
        return fix;

    const FinalEdits final_edits = finalize_plan(rule, path, text, index, plan, accepted);
    fix.fixed = apply_edits(text, final_edits.edits);
    bool slack_used = false;
    for (size_t i = 0; i < plan.groups.size(); ++i) {
        slack_used = slack_used || (accepted[i] && plan.groups[i].uses_slack);
        if (accepted[i] && plan.groups[i].uses_helper)
            fix.helper = helper;
    }
    if (slack_used) {
        fix.slack_name = plan.slack_name;
        fix.slack_us = final_edits.slack_us;
        fix.slack_defined_here = final_edits.slack_defined_here;
    }
    // The budgets after the fix, now that the slack is known.
    for (SiteOutcome& site : fix.sites) {
        if (site.loop.policy == "iopoll") {
            site.loop.after_ms_by_hz =
                budget_after_iopoll(site.loop.sleep_us, site.loop.timeout_us, sleeps);
            if (sleeps)
                if (const SleepEval e = sleeps->iopoll_sleep(site.loop.sleep_us, hz); e.step)
                    site.loop.poll_sleep = e.step->text() + " (" + e.step->at + ")";
        } else if (site.loop.policy == "keep")
            site.loop.after_ms_by_hz = budget_after_keep(
                site.finding, rule.target_for(path), fix.slack_us,
                fix.helper && site.finding.unit == Unit::Milliseconds ? fix.helper : std::nullopt,
                sleeps);
    }
    return fix;
}

FixResult plan_fixes(const std::vector<Rule>& rules, const ScanOptions& options,
                     const ScanResult& scan) {
    std::map<std::string, FileWork> by_file;
    for (const Finding& f : scan.findings)
        if (std::any_of(rules.begin(), rules.end(),
                        [&](const Rule& rule) { return worth_a_look(rule, f); })) {
            FileWork& w = by_file[f.file];
            w.path = f.file;
        }
    for (const Finding& f : scan.findings)
        if (auto it = by_file.find(f.file); it != by_file.end())
            it->second.findings.push_back(f);
    std::vector<FileWork*> work;
    for (auto& [path, w] : by_file)
        work.push_back(&w);

    // The re-scans keep preambles when the scan did (scanner.h: not for a large part of the tree).
    ScanOptions rescan = options;
    rescan.preambles = !scan.preamble_dir.empty();
    rescan.cache_parses = !scan.parse_dir.empty();
    parallel_for(work.size(), options.jobs,
                 [&](size_t i) { fix_and_verify(rules, rescan, scan, *work[i]); });

    FixResult result;
    for (FileWork* w : work) {
        if (w->fix)
            result.files.push_back(std::move(*w->fix));
        for (SiteOutcome& s : w->skipped)
            result.skipped.push_back(std::move(s));
    }
    result.scan = scan;
    return result;
}

FixResult plan_fixes(const Rule& rule, const ScanOptions& options, const ScanResult& scan) {
    return plan_fixes(std::vector<Rule>{rule}, options, scan);
}

LoopPolicyCounts count_loop_policies(const FixResult& result) {
    LoopPolicyCounts counts;
    for (const FileFix& f : result.files)
        for (const SiteOutcome& s : f.sites) {
            counts.iopoll += s.loop.policy == "iopoll";
            counts.keep += s.loop.policy == "keep";
        }
    for (const SiteOutcome& s : result.skipped) // a site left for another reason is not counted
        counts.leave += s.loop.policy == "leave";
    return counts;
}

std::string loop_policy_summary(const LoopPolicyCounts& counts) {
    if (counts.iopoll + counts.keep + counts.leave == 0)
        return "";
    return "loops that give up after a count: " + std::to_string(counts.iopoll) +
           " into an iopoll helper, " + std::to_string(counts.keep) +
           " kept with the budget stated, " + std::to_string(counts.leave) + " left alone.";
}

} // namespace ksweep
