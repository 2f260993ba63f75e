// The CI gate: small msleep() calls on the lines a patch adds.
//
// Each patch is applied in memory to the files it changes (post-image), and every changed C
// file is scanned as it will be after the patch, so a constant the patch defines or changes
// resolves to its new value; headers the patch does not touch come from the tree. Only calls
// on added lines are reported: a patch that moves or keeps an old msleep() passes.
#pragma once

#include "check/unified_diff.h"
#include "core/finding.h"
#include "core/rule.h"
#include "core/sleep_model.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
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

struct Warning {
    Finding finding;         // file and line in the patched file
    unsigned input_line = 0; // line of the input holding the added line (checkpatch "#N")
    std::string added_line;  // that line, without its '+'
    bool line_added = true;  // false: an unchanged call whose value the patch changed
    std::string suggestion;  // "usleep_range(3000, 3750)"
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

// A patch that cannot be checked (does not parse or does not apply): what() says why.
struct CheckError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class PatchChecker {
  public:
    PatchChecker(const Rule& rule, CheckOptions options);

    InputReport check(const CheckInput& input, Overlay& overlay) const;

    int hz() const { return hz_; }
    const KernelVersion& kernel() const { return kernel_; }
    const std::string& build_dir() const { return options_.build_dir; }

  private:
    std::vector<Warning> check_patch(const Patch& patch, const PreimageReader& preimage,
                                     Overlay& overlay) const;
    Warning make_warning(const Finding& finding, const DiffLine& added,
                         const std::map<std::string, std::set<unsigned>>& added_by_patch) const;

    const Rule& rule_;
    CheckOptions options_;
    int hz_ = 250;
    KernelVersion kernel_;
};

// The replacement the rule suggests for a finding: usleep_range(min, min + slack) or fsleep.
std::string suggest_replacement(const Rule& rule, const Finding& finding);

} // namespace ksweep::check
