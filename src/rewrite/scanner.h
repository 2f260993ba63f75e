// The scanner: every call a rule looks at, in a tree or in one buffer, resolved to a value.
//
// Contract shared by scan, fix, check and series. The lexical engine (clang's raw lexer:
// literals, same-file #defines) runs on every file; the semantic engine (LibTooling, full
// preprocessing, Expr::EvaluateAsInt) runs where the lexical one could not resolve a site or
// where asked, with flags from compile_commands.json or synthesized from a build directory, on
// a precompiled preamble of the file's headers once it has one.
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "core/sleep_model.h"
#include "rewrite/semantic_engine.h"

#include <functional>
#include <string>
#include <vector>

namespace ksweep {

struct ScanOptions {
    std::string tree;               // kernel tree root
    std::vector<std::string> paths; // tree-relative files or directories; empty: whole tree
    std::string build_dir;          // prepared build/headers dir; empty: find_build_dir()
    int jobs = 2;
    bool semantic = true; // false: lexical engine only
    int hz = 0;           // 0: CONFIG_HZ of the build dir (250 if none)
    // Called as files complete (done, total); the CLI turns it into a progress line.
    std::function<void(size_t done, size_t total)> progress;
    // Also find the rule's calls that macros used in a file expand to (ScanResult::macro_uses):
    // the semantic engine then parses every file and every function body in it.
    bool macro_uses = false;
    // Also report these sleeps that are not the rule's (usleep_range, fsleep), each with the loop
    // around it (ScanResult::other_sleeps): check compares a loop's budget before and after a
    // patch. Parses the files semantically, every function body.
    std::vector<std::string> other_sleeps;
    // Keep each parsed file's header prefix as a precompiled preamble in the cache, so the next
    // parse of the file reads only the file itself (rewrite/preamble_cache.h).
    bool preambles = true;
    // Keep each parse's results in the cache, so the next scan of the same file with the same
    // headers parses nothing (rewrite/parse_cache.h).
    bool cache_parses = true;
};

struct ScanResult {
    std::vector<Finding> findings; // sorted by file, then offset
    // With ScanOptions::macro_uses: one per rule call a macro use expands to, located at the use
    // (call: the use's text, constant: the macro, defined_at: where the call is spelled). Kept
    // apart from `findings`: the fixer rewrites calls, not the uses of a macro.
    std::vector<Finding> macro_uses;
    std::vector<OtherSleep> other_sleeps; // with ScanOptions::other_sleeps
    int hz = 250;
    KernelVersion kernel;
    bool extra_jiffy = true;         // the tree's msleep() adds the historical extra jiffy
    std::string build_dir;           // what the semantic engine used ("" if none)
    std::string preamble_dir;        // where it kept preambles ("" none): re-parses do the same
    std::string parse_dir;           // where it kept parse results ("" none): likewise
    std::vector<std::string> errors; // "file: reason" for files that could not be read/parsed
    size_t files_scanned = 0;
    size_t files_semantic = 0; // files the semantic engine parsed
    size_t files_fallback = 0; // files it could not parse: lexical results kept
};

// The sleep model and the rule's threshold for a finding whose value is known (or not):
// predicted_sleep_ms at `hz`, predicted_by_hz, actionable.
void judge_finding(Finding& f, const Rule& rule, int hz, bool extra_jiffy);

// Scans the tree (or the paths in it) for every rule in one pass: each file is read once, lexed
// once per rule and parsed at most once for all of them; the findings in file order, each
// naming its rule, counts and errors once per file. Throws std::runtime_error on unusable input
// (no such tree); per-file problems go to ScanResult::errors.
ScanResult scan_tree(const std::vector<Rule>& rules, const ScanOptions& options);
ScanResult scan_tree(const Rule& rule, const ScanOptions& options);

// Scans one file's text as if it were at `rel_path` inside options.tree (headers resolve
// against the tree and build dir). Used by fix (re-scan after edits) and check (patched text).
ScanResult scan_buffer(const Rule& rule, const ScanOptions& options, const std::string& rel_path,
                       const std::string& content);

} // namespace ksweep
