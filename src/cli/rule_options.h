// The rule options every finding command shares: which rules (`--rule`, several allowed; the
// registry's default rules without it), the threshold policy for all of them, and whether the
// subsystems' own sleep helpers may be used.
#pragma once

#include "cli/args.h"
#include "core/rule.h"

#include <string>
#include <vector>

namespace ksweep::cli {

struct RuleOptions {
    std::vector<std::string> names; // --rule
    std::string threshold;          // --threshold: "", "checkpatch" or "hz"
    bool no_helpers = false;        // --no-helpers

    // `several`: --rule may be given more than once (scan, fix, check); else one rule.
    void add_to(ArgParser& args, bool several = true);

    // Loads the rules for the tree: --threshold overrides each rule's own, --no-helpers drops
    // the rules' helpers, and `target: auto` becomes what the tree asks for (said in one stderr
    // line prefixed with `command` when `say_target`). Throws RuleError for a bad file or a
    // target the tree lacks, std::runtime_error for a bad threshold.
    std::vector<Rule> load(const std::string& command, const std::string& tree,
                           bool say_target = true) const;
};

} // namespace ksweep::cli
