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
    std::string loops;              // --loops: "", "iopoll", "keep" or "leave"

    // `several`: --rule may be given more than once (scan, fix, check); else one rule.
    void add_to(ArgParser& args, bool several = true);

    // Loads the rules: --threshold overrides each rule's own, --no-helpers drops the rules'
    // helpers. Throws RuleError for a bad file, std::runtime_error for a bad threshold.
    std::vector<Rule> load() const;

    // `target: auto` becomes what the tree asks for, read from `sources` (the tree, or for a
    // sparse checkout the full tree its build dir was made from: BuildDir::sources) parsed with
    // `build_dir`'s flags, said in one stderr line prefixed with `command` when `say`, and
    // returned ("target auto: usleep_range (why)"; "" when no rule's target was auto). Throws
    // RuleError for a target the tree lacks.
    static std::string settle(std::vector<Rule>& rules, const std::string& command,
                              const std::string& sources, const std::string& build_dir,
                              bool say = true);
};

} // namespace ksweep::cli
