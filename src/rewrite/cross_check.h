// Cross-checking the clang engines against the Coccinelle twin: every actionable site one
// engine finds and the other does not, each with the reason by category. Differences that
// follow from what each engine can see (a constant from a header is out of reach of a
// per-file semantic patch) are expected; the category says which, and "unexplained" is the
// one that should stay at zero.
#pragma once

#include "rewrite/cocci_engine.h"
#include "rewrite/scanner.h"

#include <map>
#include <string>
#include <vector>

namespace ksweep {

struct CrossCheckDifference {
    Finding finding;      // as the engine that found it reported it
    bool found_by_ksweep; // false: found by spatch only
    std::string category; // "enum constant", "constant from a header", ...
    std::string detail;   // the evidence: "FOO at drivers/x/foo.h:12", "parse error at line 80"
};

struct CrossCheckResult {
    size_t ksweep_sites = 0; // actionable sites found by the clang engines
    size_t spatch_sites = 0; // sites found by spatch
    size_t both = 0;
    std::vector<CrossCheckDifference> differences; // by file and line
    std::map<std::string, size_t> ksweep_only;     // category -> count
    std::map<std::string, size_t> spatch_only;
};

struct CrossCheckOptions {
    std::string tree;
    std::string spatch = "spatch";
    // Ask spatch --parse-c about files where it missed a site it should see (slow per file).
    bool probe_parse = true;
};

CrossCheckResult cross_check(const ScanResult& ksweep, const CocciResult& cocci,
                             const CrossCheckOptions& options);

// The category of a difference nothing explains: should stay at zero.
extern const char* const kCategoryUnexplained;

// Runs spatch with the rule's twin over the same tree and paths as `options`, then
// cross_check() against `ksweep`, the clang engines' scan of them.
CrossCheckResult cross_check_scan(const Rule& rule, const ScanOptions& options,
                                  const ScanResult& ksweep);

// The report `ksweep scan --cross-check` prints: counts per category, then every difference.
std::string format_cross_check_text(const CrossCheckResult& result);
std::string format_cross_check_json(const CrossCheckResult& result);

} // namespace ksweep
