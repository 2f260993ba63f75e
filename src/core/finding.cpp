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

} // namespace ksweep
