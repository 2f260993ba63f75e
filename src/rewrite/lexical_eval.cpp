#include "rewrite/lexical_eval.h"

#include <cctype>
#include <charconv>
#include <climits>

namespace ksweep {

namespace tok = clang::tok;

std::optional<long long> parse_integer_literal(std::string_view text) {
    while (!text.empty() &&
           (text.back() == 'u' || text.back() == 'U' || text.back() == 'l' || text.back() == 'L'))
        text.remove_suffix(1);
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text.remove_prefix(2);
    } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
        base = 2;
        text.remove_prefix(2);
    } else if (text.size() > 1 && text[0] == '0') {
        base = 8;
        text.remove_prefix(1);
    }
    unsigned long long value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
        value > static_cast<unsigned long long>(LLONG_MAX))
        return std::nullopt;
    return static_cast<long long>(value);
}

namespace {

// Recursive descent with C's precedence. A failure records why and unwinds with nullopt.
class Evaluator {
  public:
    Evaluator(std::span<const RawToken> tokens, const NameLookup& lookup, LexicalValue& out,
              int depth)
        : tokens_(tokens), lookup_(lookup), out_(out), depth_(depth) {}

    std::optional<long long> run() {
        if (tokens_.empty())
            return fail_semantic("empty expression");
        auto v = conditional();
        if (v && pos_ != tokens_.size())
            return fail_semantic("cannot fold '" + std::string(tokens_[pos_].text) + "'");
        return v;
    }

  private:
    const RawToken* peek() const { return pos_ < tokens_.size() ? &tokens_[pos_] : nullptr; }
    bool accept(tok::TokenKind k) {
        if (peek() && peek()->is(k)) {
            ++pos_;
            return true;
        }
        return false;
    }

    std::optional<long long> fail_semantic(std::string why) {
        if (!out_.non_constant && !out_.needs_semantic) {
            out_.needs_semantic = true;
            out_.reason = std::move(why);
        }
        return std::nullopt;
    }
    std::optional<long long> fail_non_constant(std::string why) {
        if (!out_.non_constant) {
            out_.non_constant = true;
            out_.needs_semantic = false; // a variable settles it: no engine can fold this
            out_.reason = std::move(why);
        }
        return std::nullopt;
    }

    std::optional<long long> conditional() {
        auto cond = binary(1);
        if (!cond || !accept(tok::question))
            return cond;
        auto a = conditional();
        if (!a || !accept(tok::colon))
            return a ? fail_semantic("malformed ?:") : std::nullopt;
        auto b = conditional();
        if (!b)
            return std::nullopt;
        return *cond ? a : b;
    }

    static int precedence(tok::TokenKind k) {
        switch (k) {
        case tok::pipepipe:
            return 1;
        case tok::ampamp:
            return 2;
        case tok::pipe:
            return 3;
        case tok::caret:
            return 4;
        case tok::amp:
            return 5;
        case tok::equalequal:
        case tok::exclaimequal:
            return 6;
        case tok::less:
        case tok::lessequal:
        case tok::greater:
        case tok::greaterequal:
            return 7;
        case tok::lessless:
        case tok::greatergreater:
            return 8;
        case tok::plus:
        case tok::minus:
            return 9;
        case tok::star:
        case tok::slash:
        case tok::percent:
            return 10;
        default:
            return 0;
        }
    }

    std::optional<long long> binary(int min_prec) {
        auto lhs = unary();
        while (lhs && peek()) {
            tok::TokenKind op = peek()->kind;
            int prec = precedence(op);
            if (prec == 0 || prec < min_prec)
                break;
            ++pos_;
            auto rhs = binary(prec + 1);
            if (!rhs)
                return std::nullopt;
            lhs = apply(op, *lhs, *rhs);
        }
        return lhs;
    }

    std::optional<long long> apply(tok::TokenKind op, long long a, long long b) {
        switch (op) {
        case tok::pipepipe:
            return a || b;
        case tok::ampamp:
            return a && b;
        case tok::pipe:
            return a | b;
        case tok::caret:
            return a ^ b;
        case tok::amp:
            return a & b;
        case tok::equalequal:
            return a == b;
        case tok::exclaimequal:
            return a != b;
        case tok::less:
            return a < b;
        case tok::lessequal:
            return a <= b;
        case tok::greater:
            return a > b;
        case tok::greaterequal:
            return a >= b;
        case tok::lessless:
            if (b < 0 || b > 62)
                return fail_semantic("shift out of range");
            return a << b;
        case tok::greatergreater:
            if (b < 0 || b > 63)
                return fail_semantic("shift out of range");
            return a >> b;
        case tok::plus:
            return a + b;
        case tok::minus:
            return a - b;
        case tok::star:
            return a * b;
        case tok::slash:
        case tok::percent:
            if (b == 0)
                return fail_semantic("division by zero");
            return op == tok::slash ? a / b : a % b;
        default:
            return fail_semantic("operator");
        }
    }

    std::optional<long long> unary() {
        if (accept(tok::minus)) {
            auto v = unary();
            return v ? std::optional(-*v) : std::nullopt;
        }
        if (accept(tok::plus))
            return unary();
        if (accept(tok::tilde)) {
            auto v = unary();
            return v ? std::optional(~*v) : std::nullopt;
        }
        if (accept(tok::exclaim)) {
            auto v = unary();
            return v ? std::optional<long long>(!*v) : std::nullopt;
        }
        return postfix();
    }

    // A primary followed by a member access, call or subscript is not something we fold.
    std::optional<long long> postfix() {
        auto v = primary();
        if (auto* t = peek()) {
            if (t->is(tok::arrow) || t->is(tok::period))
                return fail_non_constant("member access");
            if (v && (t->is(tok::l_square) || t->is(tok::l_paren)))
                return fail_semantic("call or subscript");
        }
        return v;
    }

    std::optional<long long> primary() {
        const RawToken* t = peek();
        if (!t)
            return fail_semantic("expression ends early");
        if (t->is(tok::numeric_constant)) {
            ++pos_;
            if (auto v = parse_integer_literal(t->text))
                return v;
            return fail_semantic("not an integer literal: " + std::string(t->text));
        }
        if (t->is(tok::l_paren)) {
            ++pos_;
            auto v = conditional();
            if (!v)
                return std::nullopt;
            if (!accept(tok::r_paren))
                return fail_semantic("cast or unbalanced parenthesis");
            return v;
        }
        if (t->is_identifier()) {
            ++pos_;
            return name(*t);
        }
        return fail_semantic("cannot fold '" + std::string(t->text) + "'");
    }

    std::optional<long long> name(const RawToken& t) {
        if (t.text == "sizeof" || t.text == "__builtin_constant_p")
            return fail_semantic(std::string(t.text));
        bool called = peek() && peek()->is(tok::l_paren);
        NameMeaning m = lookup_(t);
        switch (m.kind) {
        case NameMeaning::Variable:
            return fail_non_constant("'" + std::string(t.text) + "' is a variable");
        case NameMeaning::Macro: {
            if (depth_ > 32)
                return fail_semantic("macro nesting too deep");
            Evaluator inner(m.body, lookup_, out_, depth_ + 1);
            return inner.run();
        }
        case NameMeaning::Ambiguous:
            return fail_semantic("'" + std::string(t.text) + "' has several definitions");
        case NameMeaning::FunctionMacro:
            return fail_semantic("function-like macro " + std::string(t.text));
        case NameMeaning::Unknown:
            break;
        }
        if (called)
            return fail_semantic("call of " + std::string(t.text));
        return fail_semantic("'" + std::string(t.text) + "' is not defined in this file");
    }

    std::span<const RawToken> tokens_;
    const NameLookup& lookup_;
    LexicalValue& out_;
    int depth_;
    size_t pos_ = 0;
};

} // namespace

LexicalValue evaluate_tokens(std::span<const RawToken> tokens, const NameLookup& lookup) {
    LexicalValue out;
    Evaluator ev(tokens, lookup, out, 0);
    out.value = ev.run();
    if (out.value) {
        out.needs_semantic = out.non_constant = false;
        out.reason.clear();
        return out;
    }
    // The walk stops at the first name it cannot fold; a variable further on still settles
    // that the whole is not a constant (sizeof aside), and spares a semantic parse.
    if (out.needs_semantic) {
        bool has_sizeof = false;
        for (const auto& t : tokens)
            has_sizeof |= t.is_identifier("sizeof");
        for (size_t i = 0; i < tokens.size() && !has_sizeof; ++i) {
            const auto& t = tokens[i];
            bool member = t.is(tok::arrow) || t.is(tok::period);
            if (member || (t.is_identifier() && lookup(t).kind == NameMeaning::Variable)) {
                out.non_constant = true;
                out.needs_semantic = false;
                out.reason =
                    member ? "member access" : "'" + std::string(t.text) + "' is a variable";
                break;
            }
        }
    }
    return out;
}

} // namespace ksweep
