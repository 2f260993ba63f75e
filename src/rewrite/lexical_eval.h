// Folds an integer constant expression given as raw tokens: C integer literals in any form
// (0x10, 010, 0b1, 5U, 10UL), + - * / % << >> & | ^ ~ ! comparisons && || ?: and parentheses,
// and names the caller resolves (same-file object-like #defines, folded recursively).
// Anything else is not guessed: it is either known not to be a constant (a variable, a
// member, a macro parameter) or left for the semantic engine (a name from a header, a cast,
// a function-like macro, sizeof).
#pragma once

#include "rewrite/lexical_tokens.h"

#include <functional>
#include <optional>
#include <span>
#include <string>

namespace ksweep {

// What a name in an expression stands for, as far as the file itself tells.
struct NameMeaning {
    enum Kind { Unknown, Variable, Macro, FunctionMacro, Ambiguous } kind = Unknown;
    std::span<const RawToken> body; // Macro: its replacement tokens
};

using NameLookup = std::function<NameMeaning(const RawToken& name)>;

struct LexicalValue {
    std::optional<long long> value;
    bool non_constant = false;   // depends on a variable: unresolved, no engine can fold it
    bool needs_semantic = false; // depends on something only full preprocessing can tell
    std::string reason;          // why there is no value
};

LexicalValue evaluate_tokens(std::span<const RawToken> tokens, const NameLookup& lookup);

// A C integer literal (decimal, octal, hex, binary; u/l suffixes); nullopt for anything else.
std::optional<long long> parse_integer_literal(std::string_view text);

} // namespace ksweep
