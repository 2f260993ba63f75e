// The Coccinelle engine: runs spatch with a rule's twin (rules/<name>.cocci) in report mode
// and reads its warnings into the same Findings the clang engines produce (engine = Cocci).
// It is the independent check on the clang engines, not a replacement: it sees literals and
// same-file #defines of literals only (see rules/msleep_small.cocci).
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "core/sleep_model.h"
#include "rewrite/scanner.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ksweep {

struct CocciOptions {
    std::string tree;               // kernel tree root
    std::vector<std::string> paths; // tree-relative files or directories; empty: whole tree
    std::string sp_file;            // empty: the rule's twin, <rule .yaml path> with .cocci
    std::string spatch = "spatch";  // program, searched in PATH
    int jobs = 1;
    int hz = 250; // for predicted_sleep_ms
    KernelVersion kernel;
};

struct CocciResult {
    std::vector<Finding> findings;     // sorted by file, line, column
    std::vector<std::string> errors;   // spatch failures ("path: exit status 1: ...")
    std::vector<std::string> commands; // the spatch command lines run, for the record
};

// The .cocci file beside a rule's .yaml.
std::string cocci_twin(const Rule& rule);

// Runs spatch once per path (the whole tree when there are none). Throws std::runtime_error
// when spatch cannot be run at all.
CocciResult run_cocci_scan(const Rule& rule, const CocciOptions& options);

// Reads report-mode lines ("FILE:LINE:COL-COL: WARNING: msleep(ARG) ...") into findings with
// tree-relative paths and 1-based columns; other lines are ignored.
std::vector<Finding> parse_cocci_report(const std::string& output, const std::string& tree,
                                        const Rule& rule, int hz, KernelVersion kernel);

// run_cocci_scan over what a ScanOptions names, as a ScanResult, so that `ksweep scan
// --engine cocci` prints and counts it like the clang engines' results.
ScanResult cocci_scan_tree(const Rule& rule, const ScanOptions& options);

// What spatch's C parser gave up on in `file`, from `spatch --parse-c`: line ranges
// (1-based, inclusive) of failed top-level definitions where its output locates them, and
// the text of every line it printed as "bad:". Both empty when the file parses.
struct CocciParseFailures {
    std::vector<std::pair<unsigned, unsigned>> ranges;
    std::set<std::string> bad_lines; // without leading/trailing blanks
};
CocciParseFailures cocci_parse_failures(const std::string& spatch, const std::string& file);

} // namespace ksweep
