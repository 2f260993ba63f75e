// The rule options every finding command shares: which rules (`--rule`, several allowed; the
// registry's default rules without it) and the threshold policy for all of them.
#pragma once

#include "cli/args.h"
#include "core/rule.h"

#include <string>
#include <vector>

namespace ksweep::cli {

void add_rule_options(ArgParser& args, std::vector<std::string>* rules, std::string* threshold);

// Loads the rules for the tree: a non-empty `threshold` ("checkpatch" or "hz") overrides each
// rule's own, and `target: auto` becomes what the tree asks for (said on stderr, prefixed with
// `command`). Throws RuleError for a bad file or a target the tree lacks, std::runtime_error
// for a bad threshold.
std::vector<Rule> load_rules_for(const std::string& command, const std::vector<std::string>& rules,
                                 const std::string& threshold, const std::string& tree);

} // namespace ksweep::cli
