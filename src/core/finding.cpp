#include "core/finding.h"

namespace ksweep {

std::string_view to_string(Resolution r) {
    switch (r) {
    case Resolution::Literal:
        return "literal";
    case Resolution::Macro:
        return "macro";
    case Resolution::Enum:
        return "enum";
    case Resolution::Expression:
        return "expression";
    case Resolution::Unresolved:
        return "unresolved";
    }
    return "unresolved";
}

std::string_view to_string(Engine e) {
    switch (e) {
    case Engine::Lexical:
        return "lexical";
    case Engine::Semantic:
        return "semantic";
    case Engine::Cocci:
        return "cocci";
    }
    return "lexical";
}

std::string_view to_string(LoopEnd e) {
    switch (e) {
    case LoopEnd::Unknown:
        return "unknown";
    case LoopEnd::None:
        return "none";
    case LoopEnd::Count:
        return "count";
    case LoopEnd::Time:
        return "time";
    case LoopEnd::Condition:
        return "condition";
    }
    return "unknown";
}

double LoopInfo::budget_ms(int hz) const {
    for (const auto& [at, ms] : budget_ms_by_hz)
        if (at == hz)
            return ms;
    return 0;
}

std::optional<double> Finding::requested_ms() const {
    if (!value)
        return std::nullopt;
    return unit == Unit::Microseconds ? static_cast<double>(*value) / 1000 : *value;
}

std::optional<long long> Finding::requested_us() const {
    if (!value)
        return std::nullopt;
    return unit == Unit::Microseconds ? *value : *value * 1000;
}

std::string Finding::value_text() const {
    return value ? std::to_string(*value) + " " + std::string(to_string(unit)) : "?";
}

} // namespace ksweep
