#include "cli/rule_options.h"

#include "rewrite/tree_target.h"

#include <cstdio>
#include <stdexcept>

namespace ksweep::cli {

void RuleOptions::add_to(ArgParser& args, bool several) {
    std::string defaults;
    for (const std::string& name : default_rule_names())
        defaults += (defaults.empty() ? "" : ", ") + name;
    if (several)
        args.repeated(
            "--rule", &names, "NAME|FILE",
            "a shipped rule's name or a rule file; several allowed (default: " + defaults + ")");
    else
        args.repeated(
            "--rule", &names, "NAME|FILE",
            "a shipped rule's name or a rule file (default: " + default_rule_names().front() + ")");
    args.option("--threshold", &threshold, "checkpatch|hz",
                "checkpatch: below the rule's threshold_ms; hz: the predicted overshoot at the "
                "tree's HZ above the rule's overshoot_percent (default: each rule's own)");
    args.option("--loops", &loops, "iopoll|keep|leave",
                "a sleep in a loop that gives up after a count: rewrite the loop into the tree's "
                "iopoll helper, keep the loop and state its budget, or leave the site (default: "
                "each rule's own, iopoll)");
    args.flag("--no-helpers", &no_helpers,
              "write the rule's target even where the subsystem has its own sleep helper "
              "(tpm_msleep): for trees older than the helper, or a replay of such a time");
}

std::vector<Rule> RuleOptions::load() const {
    if (!threshold.empty() && threshold != "checkpatch" && threshold != "hz")
        throw std::runtime_error("--threshold must be checkpatch or hz, not '" + threshold + "'");
    const auto loop_policy = loop_policy_named(loops);
    if (!loops.empty() && !loop_policy)
        throw std::runtime_error("--loops must be iopoll, keep or leave, not '" + loops + "'");
    std::vector<Rule> rules = load_rules(names);
    for (Rule& rule : rules) {
        if (loop_policy)
            rule.loops.count = *loop_policy;
        if (!threshold.empty())
            rule.threshold = threshold == "hz" ? ThresholdPolicy::Hz : ThresholdPolicy::Checkpatch;
        if (no_helpers)
            for (RuleOverride& o : rule.overrides)
                o.helpers.clear();
    }
    return rules;
}

std::string RuleOptions::settle(std::vector<Rule>& rules, const std::string& command,
                                const std::string& sources, const std::string& build_dir,
                                bool say) {
    std::string said = settle_targets(rules, sources, build_dir);
    if (!said.empty() && say)
        std::fprintf(stderr, "ksweep %s: %s\n", command.c_str(), said.c_str());
    return said;
}

} // namespace ksweep::cli
