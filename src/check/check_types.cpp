#include "check/check_types.h"

namespace ksweep::check {

std::string warning_type(const Rule& rule) {
    return rule.type;
}

std::string unresolved_type(const Rule& rule) {
    return warning_type(rule) + "_UNRESOLVED";
}

std::string loop_budget_type(const Rule& rule) {
    return warning_type(rule) + "_LOOP_BUDGET";
}

std::string rule_calls(const Rule& rule) {
    std::string out;
    for (const CallForm& form : rule.calls)
        out += (out.empty() ? "" : "/") + form.display();
    return out;
}

} // namespace ksweep::check
