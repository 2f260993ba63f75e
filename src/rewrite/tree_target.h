// `target: auto`: what the tree itself asks for. Its fsleep() (evaluated with clang on its own
// delay.h, sleep_eval.h) and its documentation decide, not its version number.
#pragma once

#include "core/rule.h"
#include "kbuild/sleep_api.h"

#include <string>
#include <vector>

namespace ksweep {

struct TargetChoice {
    Target target = Target::UsleepRange;
    std::string why; // one line: what in the tree made the choice
};

// fsleep when the tree's fsleep() keeps a bounded slack (25 %, v6.13+) and its timers document
// is delay_sleep_functions.rst ("use fsleep() whenever unsure"); usleep_range with the rule's
// named slack otherwise (an older fsleep() allows twice the sleep, and timers-howto.rst asks for
// usleep_range).
TargetChoice choose_target(const kbuild::SleepApi& api);

// Settles every rule's `auto` target for the tree and returns the line that says what was
// chosen and why ("" when no rule asked for auto). Throws RuleError when a rule asks for fsleep
// on a tree without fsleep().
std::string settle_targets(std::vector<Rule>& rules, const std::string& tree,
                           const std::string& build_dir);

} // namespace ksweep
