// plan_fixes: per file, plan the edits from the scan's findings, refuse overlapping groups,
// apply them in memory and verify the result; -j files at a time.
#include "rewrite/fixer.h"

#include "core/file_io.h"
#include "core/parallel.h"
#include "rewrite/applier.h"
#include "rewrite/fix_verify.h"
#include "rewrite/macro_uses.h"
#include "rewrite/planner.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

// Sites a reader would expect the fixer to look at: the rule's calls that are actionable, or
// look like they might be (msleep(0), unresolved arguments).
bool worth_a_look(const Rule& rule, const Finding& f) {
    return rule.is_rule_function(f.callee) && (f.actionable || !f.value || *f.value == 0);
}

const char* const kOverlap = "its edits overlap another site's";

struct FileWork {
    std::string path;
    std::vector<Finding> findings;
    std::optional<FileFix> fix;
    std::vector<SiteOutcome> skipped;
};

void fix_and_verify(const Rule& rule, const ScanOptions& options, const ScanResult& scan,
                    FileWork& work) {
    const auto text = read_file(fs::path(options.tree) / work.path);
    if (!text) {
        for (const Finding& f : work.findings)
            work.skipped.push_back({f, false, "", "cannot read " + work.path, ""});
        return;
    }
    FileFix fix = fix_file_text(rule, work.path, *text, work.findings, work.skipped);
    if (fix.fixed == fix.original)
        return;
    const bool overlapped = std::any_of(work.skipped.begin(), work.skipped.end(),
                                        [](const SiteOutcome& s) { return s.reason == kOverlap; });
    if (auto failure = verify_fix(rule, options, scan, fix, !overlapped)) {
        for (const SiteOutcome& s : fix.sites)
            work.skipped.push_back({s.finding, false, "", "verification failed: " + *failure, ""});
        return;
    }
    work.fix = std::move(fix);
}

} // namespace

FileFix fix_file_text(const Rule& rule, const std::string& path, const std::string& text,
                      const std::vector<Finding>& findings, std::vector<SiteOutcome>& skipped) {
    FileFix fix;
    fix.file = path;
    fix.original = text;
    fix.fixed = text;

    const FileIndex index(text);
    FilePlan plan = plan_file(rule, path, text, index, findings);
    for (SiteOutcome& s : plan.skipped)
        skipped.push_back(std::move(s));
    const std::vector<bool> accepted = accept_groups(plan.groups);
    for (size_t i = 0; i < plan.groups.size(); ++i)
        for (const Finding& f : plan.groups[i].findings) {
            if (!accepted[i]) {
                skipped.push_back({f, false, "", kOverlap, ""});
                continue;
            }
            const auto& calls = plan.groups[i].calls;
            const auto call = calls.find(f.call_begin);
            fix.sites.push_back(
                {f, true, plan.groups[i].how, "", call == calls.end() ? "" : call->second});
        }
    if (fix.sites.empty())
        return fix;

    const FinalEdits final_edits = finalize_plan(rule, path, text, index, plan, accepted);
    fix.fixed = apply_edits(text, final_edits.edits);
    bool slack_used = false;
    for (size_t i = 0; i < plan.groups.size(); ++i)
        slack_used = slack_used || (accepted[i] && plan.groups[i].uses_slack);
    if (slack_used) {
        fix.slack_name = plan.slack_name;
        fix.slack_us = final_edits.slack_us;
        fix.slack_defined_here = final_edits.slack_defined_here;
    }
    return fix;
}

FixResult plan_fixes(const Rule& rule, const ScanOptions& options, const ScanResult& scan) {
    std::map<std::string, FileWork> by_file;
    for (const Finding& f : scan.findings)
        if (worth_a_look(rule, f)) {
            FileWork& w = by_file[f.file];
            w.path = f.file;
            w.findings.push_back(f);
        }
    std::vector<FileWork*> work;
    for (auto& [path, w] : by_file)
        work.push_back(&w);

    parallel_for(work.size(), options.jobs,
                 [&](size_t i) { fix_and_verify(rule, options, scan, *work[i]); });

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

} // namespace ksweep
