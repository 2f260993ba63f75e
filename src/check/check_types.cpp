#include "check/check_types.h"

#include <cctype>

namespace ksweep::check {

std::string warning_type(const Rule& rule) {
    std::string type = rule.functions.empty() ? rule.name : rule.functions.front();
    for (char& c : type)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return type;
}

std::string unresolved_type(const Rule& rule) {
    return warning_type(rule) + "_UNRESOLVED";
}

std::string rule_calls(const Rule& rule) {
    std::string out;
    for (const std::string& f : rule.functions)
        out += (out.empty() ? "" : "/") + f + "()";
    return out;
}

} // namespace ksweep::check
