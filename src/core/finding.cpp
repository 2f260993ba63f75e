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
