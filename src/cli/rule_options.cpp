#include "cli/rule_options.h"

#include "rewrite/tree_target.h"

#include <cstdio>
#include <stdexcept>

namespace ksweep::cli {

void add_rule_options(ArgParser& args, std::vector<std::string>* rules, std::string* threshold) {
    std::string defaults;
    for (const std::string& name : default_rule_names())
        defaults += (defaults.empty() ? "" : ", ") + name;
    args.repeated("--rule", rules, "NAME|FILE",
                  "a shipped rule's name or a rule file; several allowed (default: " + defaults +
                      ")");
    args.option("--threshold", threshold, "checkpatch|hz",
                "checkpatch: below the rule's threshold_ms; hz: msleep's predicted overshoot at "
                "the tree's HZ above the rule's overshoot_percent (default: each rule's own)");
}

std::vector<Rule> load_rules_for(const std::string& command, const std::vector<std::string>& names,
                                 const std::string& threshold, const std::string& tree) {
    std::vector<Rule> rules = load_rules(names);
    if (!threshold.empty() && threshold != "checkpatch" && threshold != "hz")
        throw std::runtime_error("--threshold must be checkpatch or hz, not '" + threshold + "'");
    for (Rule& rule : rules)
        if (!threshold.empty())
            rule.threshold = threshold == "hz" ? ThresholdPolicy::Hz : ThresholdPolicy::Checkpatch;
    if (const std::string said = settle_targets(rules, tree); !said.empty())
        std::fprintf(stderr, "ksweep %s: %s\n", command.c_str(), said.c_str());
    return rules;
}

} // namespace ksweep::cli
