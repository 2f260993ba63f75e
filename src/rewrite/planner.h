// The planner: decides, for one file's findings, what each call site becomes and groups the
// edits so that a site (or a macro with all its uses) is applied whole or not at all.
//
//   literal            msleep(5)        -> usleep_range(5000, 5000 + FOO_DELAY_RANGE)
//   macro to usec      #define X 2      -> #define X (2 * 1000), every use follows
//   scaled             msleep(HDR_X)    -> usleep_range(HDR_X * USEC_PER_MSEC, ...)
//   iopoll             a count-ended poll loop -> read_poll_timeout(...) (iopoll_rewrite.h)
//
// A site in a loop that gives up after a number of tries follows the rule's loop policy
// (Rule::loops): the iopoll rewrite where the loop's shape fits, else keep (the usual edit, the
// budget's change said) or leave (the reason gives the figures).
//
// Texts naming the slack constant are final here; the #define lines the plan rewrites get their
// text in finalize_plan(), once it is known which groups survived the overlap check, because
// their comments are realigned as a block.
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "rewrite/fixer.h"
#include "rewrite/macro_uses.h"
#include "rewrite/slack_constant.h"
#include "rewrite/sleep_helpers.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ksweep {

// A #define whose body changes: to microseconds, or just parenthesised.
struct DefineRewrite {
    const MacroDefinition* def = nullptr;
    std::string body; // the new replacement list
    bool comment_to_usec = false;
};

struct Edit {
    unsigned begin = 0, end = 0; // [begin, end) of the original text; begin == end inserts
    std::string text;
    int define_rewrite = -1; // index into EditGroup::defines: text filled by finalize_plan()
};

struct EditGroup {
    std::vector<Edit> edits;
    std::vector<DefineRewrite> defines;
    std::vector<Finding> findings;         // the call sites it fixes
    std::map<unsigned, std::string> calls; // call_begin of a rewritten call -> it, on one line
    std::string how;
    long long shortest_us = 0;   // its shortest sleep in µs, for a percent slack policy
    bool uses_slack = false;     // names the slack constant
    bool uses_helper = false;    // calls the subsystem's own sleep helper
    bool needs_iopoll_h = false; // calls an iopoll helper: <linux/iopoll.h> must be included
    std::map<unsigned, LoopOutcome> loops; // call_begin -> the loop policy's outcome
};

// What judging loops takes besides the file: the tree's sleep functions (the budget after
// fsleep() or a helper, which iopoll helpers the tree has) and its HZ. Unit tests give none.
struct LoopContext {
    TreeSleeps* sleeps = nullptr;
    int hz = 250;
};

struct FilePlan {
    std::vector<EditGroup> groups;
    std::vector<SiteOutcome> skipped;           // sites left alone, with the reason
    std::string slack_name;                     // "" when the target needs none
    std::optional<long long> existing_slack_us; // the file already defines the constant
    std::optional<SlackAnchor> anchor;          // where a new constant goes
};

// Plans the fixes for `findings` (those of `path`; others are ignored) in `text`. With a
// `helper` (the tree's own millisecond sleep the file sees), millisecond sites call it.
FilePlan plan_file(const Rule& rule, const std::string& path, const std::string& text,
                   const FileIndex& index, const std::vector<Finding>& findings,
                   const std::optional<SleepHelper>& helper = std::nullopt,
                   const LoopContext& loops = {});

// Gives the accepted groups' #define rewrites their final text (comments realigned per block)
// and returns every edit to apply, the slack constant's #define included when one is needed.
struct FinalEdits {
    std::vector<Edit> edits;
    long long slack_us = 0;
    bool slack_defined_here = false;
};
FinalEdits finalize_plan(const Rule& rule, const std::string& path, const std::string& text,
                         const FileIndex& index, FilePlan& plan, const std::vector<bool>& accepted);

} // namespace ksweep
