#include "rewrite/tree_target.h"

#include "rewrite/sleep_eval.h"

namespace ksweep {

TargetChoice choose_target(const kbuild::SleepApi& api) {
    const bool new_doc = api.timers_doc.ends_with("delay_sleep_functions.rst");
    if (api.fsleep == kbuild::FsleepKind::QuarterSlack && new_doc)
        return {Target::Fsleep, "fsleep() keeps 25 % slack at most (" + api.fsleep_source +
                                    ") and " + api.timers_doc + " recommends it"};
    std::string why;
    switch (api.fsleep) {
    case kbuild::FsleepKind::DoubleRange:
        why = "fsleep() allows twice the sleep here (" + api.fsleep_source + ")";
        break;
    case kbuild::FsleepKind::Absent:
        why = "the tree has no fsleep()";
        break;
    case kbuild::FsleepKind::QuarterSlack:
        why = "the tree's documentation does not recommend fsleep()";
        break;
    case kbuild::FsleepKind::Unknown:
        why = "fsleep() not understood (" + api.fsleep_note + ")";
        break;
    }
    return {Target::UsleepRange, why + ": usleep_range() with a named slack"};
}

std::string settle_targets(std::vector<Rule>& rules, const std::string& tree,
                           const std::string& build_dir) {
    const kbuild::SleepApi api = evaluated_sleep_api(tree, build_dir);
    const TargetChoice choice = choose_target(api);
    std::string said;
    for (Rule& rule : rules) {
        if (rule.has_target(Target::Fsleep) && api.fsleep == kbuild::FsleepKind::Absent)
            throw RuleError(rule.source_path + ": target fsleep, but " + tree +
                            " has no fsleep() (before v5.8): use usleep_range or auto");
        if (rule.has_target(Target::Auto) && said.empty())
            said = std::string("target auto: ") +
                   (choice.target == Target::Fsleep ? "fsleep" : "usleep_range") + " (" +
                   choice.why + ")";
        rule.settle_target(choice.target);
    }
    return said;
}

} // namespace ksweep
