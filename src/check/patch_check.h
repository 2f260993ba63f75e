// The CI gate: the small sleeps a patch brings in.
//
// Each patch is applied in memory on top of the ones before it, and every C file it changes
// is scanned before and after, the way `ksweep scan` resolves calls (lexical engine, then the
// semantic one with the tree's headers and the patch's own): a call is reported when it is
// small after the patch and was not the same call with the same value before (site_diff.h).
// A header change reaches the files that name what it redefines (dependents.h). A call whose
// constant no engine could evaluate is reported as such, never passed. Each warning quotes
// what `ksweep fix` would write for the site (advice.h).
#pragma once

#include "check/unified_diff.h"
#include "core/finding.h"
#include "core/rule.h"
#include "core/sleep_model.h"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::check {

struct CheckOptions {
    std::string tree;      // the tree the patches apply to; headers resolve against it
    std::string build_dir; // prepared build/headers dir; empty: find one for the tree
    bool semantic = true;  // false: lexical engine only (literals, same-file #defines)
    int hz = 0;            // 0: CONFIG_HZ of the build dir
};

// A file's text before the patch, or nullopt if the file does not exist there.
using PreimageReader = std::function<std::optional<std::string>(const std::string& path)>;

// Reads files of the tree on disk.
PreimageReader tree_reader(const std::string& tree);

// The text files have after the patches checked so far (nullopt: deleted). Patches of one
// series share one overlay, so patch 2 applies on top of patch 1.
using Overlay = std::map<std::string, std::optional<std::string>>;

// One thing checkpatch.pl would be run on: a patch file, stdin, or one commit.
struct CheckInput {
    std::string filename; // as checkpatch names it in --terse: the path, "-", or the sha
    std::string vname;    // as it names it in the summary: path, "Your patch", "Commit ..."
    std::string text;     // the patch or mailbox
    PreimageReader preimage;
};

// What `ksweep fix` would write for a site.
struct Advice {
    std::string replacement;  // the call as fix writes it, on one line; empty: fix refuses
    std::string slack_define; // "#define FOO_DELAY_RANGE 750" when fix adds the constant
    std::string how;          // fix's own words: "literal in usec", "macro X converted to usec"
    std::string refused;      // why fix leaves the site alone
};

// One finding of the gate: a small sleep the patch brings in (level WARNING), or a call whose
// constant could not be evaluated (level CHECK).
struct Warning {
    std::string level = "WARNING"; // checkpatch.pl's level: "WARNING" or "CHECK"
    std::string type;              // checkpatch.pl's type: "MSLEEP", "MSLEEP_UNRESOLVED"
    Finding finding;               // file and line in the patched file
    bool via_macro = false;        // the call is in a macro's body; finding is the macro's use
    // The line of the input that shows it (checkpatch's "#N"): the added line, or for an
    // unchanged call the patch's change that made it small.
    unsigned input_line = 0;
    std::string added_line; // the call's line after the patch, without a prefix
    bool line_added = true; // false: an unchanged call whose value the patch changed
    Advice advice;
    std::string message; // the checkpatch-style message, without level and type
    std::string patch_subject;
};

struct InputReport {
    std::string filename, vname;
    std::vector<Warning> warnings;
    unsigned lines_checked = 0;
    size_t patches = 0;              // patches checked (cover letters are not patches)
    std::vector<Warning> unresolved; // calls whose constant could not be evaluated
    std::vector<std::string> notes;  // what was skipped or could not be done, one line each
};

// Several rules' reports of the same inputs (one vector per rule, inputs in the same order)
// as one: warnings and checks together, notes once each.
std::vector<InputReport> merge_reports(std::vector<std::vector<InputReport>> per_rule);

// A patch that cannot be checked (does not parse or does not apply): what() says why.
struct CheckError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class PatchChecker {
  public:
    PatchChecker(const Rule& rule, CheckOptions options);

    // Checks every patch of the input on top of `overlay`, which it updates; a cover letter
    // is skipped with a note. Throws CheckError for input that is not a patch or a series of
    // them, or does not apply.
    InputReport check(const CheckInput& input, Overlay& overlay) const;

    int hz() const { return hz_; }
    const KernelVersion& kernel() const { return kernel_; }
    const std::string& build_dir() const { return options_.build_dir; }

  private:
    void check_patch(const Patch& patch, const PreimageReader& preimage, Overlay& overlay,
                     InputReport& report) const;

    const Rule& rule_;
    CheckOptions options_;
    int hz_ = 250;
    KernelVersion kernel_;
    std::string timers_doc_; // what warnings cite: the tree's own timers document
};

} // namespace ksweep::check
