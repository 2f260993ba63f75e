// What `ksweep fix` would write for a call the gate reports, from the fixer itself
// (fix_file_text: the same planner, the same kernel-style call text): the file as the patch
// leaves it, with every call the scan found in it, because the fixer's choices depend on all of
// them (the slack constant's name and value, whether a millisecond macro converts).
#pragma once

#include "check/patch_check.h"
#include "rewrite/fixer.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ksweep::check {

// A file of the state after the patch and what the scanner found in it.
struct ScannedFile {
    std::string text;
    ScanResult scan;
};

class FixAdvisor {
  public:
    // The scan of a file (tree-relative) after the patch, for macros spelled in a header;
    // nullptr when it cannot be read.
    using Scan = std::function<const ScannedFile*(const std::string& path)>;

    FixAdvisor(const Rule& rule, Scan scan) : rule_(rule), scan_(std::move(scan)) {}

    // A call of `path` (text after the patch) found by `findings` (the scan of that text).
    Advice for_call(const std::string& path, const std::string& text,
                    const std::vector<Finding>& findings, const Finding& call);

    // A macro use: the fix is at the call in the macro's body (use.defined_at), planned with
    // the value this use gives it.
    Advice for_macro_use(const std::string& path, const std::string& text,
                         const std::vector<Finding>& findings, const Finding& use);

  private:
    const Rule& rule_;
    Scan scan_;
};

} // namespace ksweep::check
