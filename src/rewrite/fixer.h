// The fixer: turns scan findings into whole-file edits a kernel maintainer would accept.
//
// Contract shared by fix, series, check and validate. Edits are planned per call site (a site
// is applied whole or not at all), checked for overlap per file, and verified by a re-scan.
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "rewrite/scanner.h"
#include "rewrite/sleep_helpers.h"

#include <optional>
#include <string>
#include <vector>

namespace ksweep {

class TreeSleeps;

// What the fix did with the count-ended loop a site paces (or one it could not analyse), by the
// rule's loop policy, and the loop's budget after it: every message about the site says it.
struct LoopOutcome {
    std::string policy; // "iopoll", "keep", "leave"; "" when no count-ended loop is in question
    std::string why;    // keep or leave after iopoll was asked: what stopped it; or "its loop
                        // was not analysed (...)"
    std::string helper; // iopoll: "read_poll_timeout", "regmap_read_poll_timeout", ...
    std::string call;   // iopoll: the poll on one line
    long long sleep_us = 0, timeout_us = 0; // iopoll's arguments
    std::string timeout_why;                // iopoll: where the timeout comes from
    std::string poll_sleep; // iopoll: its sleep as the tree runs it, "usleep_range(751, 3000)
                            // (include/linux/iopoll.h:40)"; "" when not evaluated
    // The budget after the fix (iopoll, keep) or the one it would have had (leave), at HZ 100,
    // 250 and 1000; empty when not known.
    std::vector<std::pair<int, double>> after_ms_by_hz;
};

// One site the fixer changed, or refused to change, and why.
struct SiteOutcome {
    Finding finding;
    bool fixed = false;
    std::string how;         // "literal", "macro converted to usec", "scaled at call site", ...
    std::string reason;      // why a site was left alone (msleep(0), unresolved, overlap, ...)
    std::string replacement; // a fixed site: its new call on one line, as `check` quotes it
    LoopOutcome loop;
};

// The new text of one file.
struct FileFix {
    std::string file;       // tree-relative
    std::string original;   // text before
    std::string fixed;      // text after
    std::string slack_name; // the named slack constant the file uses ("" if none needed)
    long long slack_us = 0;
    bool slack_defined_here = false;   // the fixer added the #define
    std::optional<SleepHelper> helper; // the subsystem's own sleep the fix calls, if any
    std::vector<SiteOutcome> sites;
};

struct FixResult {
    std::vector<FileFix> files;       // only files whose text changed, in path order
    std::vector<SiteOutcome> skipped; // actionable-looking sites left alone, with reasons
    ScanResult scan;                  // the scan the plan was made from
};

// What the loop policy did with the sites in count-ended loops (LoopOutcome::policy): fixed
// sites into an iopoll helper or kept with the budget stated, skipped ones the policy left.
struct LoopPolicyCounts {
    size_t iopoll = 0, keep = 0, leave = 0;
};
LoopPolicyCounts count_loop_policies(const FixResult& result);
// "loops that give up after a count: 1 into an iopoll helper, 2 kept with the budget stated,
// 0 left alone."; "" when no site was in such a loop.
std::string loop_policy_summary(const LoopPolicyCounts& counts);

// Plans and applies in memory; writes nothing. With several rules, each fixes the text the
// ones before it left (re-scanned), and a file's FileFix holds all their sites.
FixResult plan_fixes(const std::vector<Rule>& rules, const ScanOptions& options,
                     const ScanResult& scan);
FixResult plan_fixes(const Rule& rule, const ScanOptions& options, const ScanResult& scan);

// Fixes one file's text in memory from its findings (plan, overlap check, apply), without
// reading the tree or re-scanning. Sites left alone are appended to `skipped`. plan_fixes()
// runs this per file and verifies the result; tests call it with findings of their own.
// `read` gives the tree's files: the headers where the subsystem's own sleep helper may be
// (Rule::helpers_for); without it, none is looked for.
// `sleeps` (the tree's sleep functions, for the budgets after fsleep() or a helper) and `hz`
// (the tree's) judge count-ended loops; without `sleeps` the iopoll helpers are taken to exist.
FileFix fix_file_text(const Rule& rule, const std::string& path, const std::string& text,
                      const std::vector<Finding>& findings, std::vector<SiteOutcome>& skipped,
                      const ReadTreeFile& read = nullptr, TreeSleeps* sleeps = nullptr,
                      int hz = 250);

// A unified diff (git-style a/ b/ paths) of the result, for `ksweep fix` without --in-place.
std::string unified_diff(const FixResult& result);

} // namespace ksweep
