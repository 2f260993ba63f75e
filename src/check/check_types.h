// The words `check` gives a rule's findings, in one place: the checkpatch.pl type of a
// warning, the type of a call whose constant could not be evaluated, the calls the rule is
// about, and the document checkpatch cites. A rule with its own type takes it from here.
#pragma once

#include "core/rule.h"

#include <string>

namespace ksweep::check {

// The rule's type: "MSLEEP" for msleep_small, as checkpatch.pl's own check (the YAML's `type`,
// else its first function in upper case).
std::string warning_type(const Rule& rule);
// "MSLEEP_UNRESOLVED": the level is CHECK, as checkpatch prints what may not be a problem.
std::string unresolved_type(const Rule& rule);
// "MSLEEP_LOOP_BUDGET": a patch that shortens the sleep of a loop that gives up after a number
// of tries, and with it the loop's time budget (a driver's timeout).
std::string loop_budget_type(const Rule& rule);
// "msleep()" (joined with "/" when the rule has several functions).
std::string rule_calls(const Rule& rule);

} // namespace ksweep::check
