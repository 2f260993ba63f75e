// The lexical engine's constant folding on its own.
#include "rewrite/lexical_eval.h"
#include "rewrite/lexical_tokens.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>

namespace ksweep {
namespace {

// Folds `expr` with `macros` as the file's object-like #defines and `vars` as variables.
LexicalValue fold(const std::string& expr, const std::map<std::string, std::string>& macros = {},
                  const std::vector<std::string>& vars = {}) {
    static std::map<std::string, std::string> texts; // keeps the lexed buffers alive
    static std::map<std::string, std::vector<RawToken>> lexed;
    auto tokens_of = [](const std::string& s) -> const std::vector<RawToken>& {
        auto& text = texts[s];
        text = s;
        return lexed[s] = lex_raw(text);
    };
    const auto& tokens = tokens_of(expr);
    std::map<std::string, const std::vector<RawToken>*> bodies;
    for (const auto& [name, body] : macros)
        bodies[name] = &tokens_of(body);
    return evaluate_tokens(tokens, [&](const RawToken& t) {
        std::string name(t.text);
        if (std::find(vars.begin(), vars.end(), name) != vars.end())
            return NameMeaning{NameMeaning::Variable, {}};
        if (auto it = bodies.find(name); it != bodies.end())
            return NameMeaning{NameMeaning::Macro, *it->second};
        return NameMeaning{};
    });
}

TEST(IntegerLiteral, EveryCForm) {
    EXPECT_EQ(parse_integer_literal("10"), 10);
    EXPECT_EQ(parse_integer_literal("0x10"), 16);
    EXPECT_EQ(parse_integer_literal("0X1f"), 31);
    EXPECT_EQ(parse_integer_literal("010"), 8);
    EXPECT_EQ(parse_integer_literal("0b101"), 5);
    EXPECT_EQ(parse_integer_literal("5U"), 5);
    EXPECT_EQ(parse_integer_literal("10UL"), 10);
    EXPECT_EQ(parse_integer_literal("7ull"), 7);
    EXPECT_EQ(parse_integer_literal("0"), 0);
    EXPECT_FALSE(parse_integer_literal("1.5"));
    EXPECT_FALSE(parse_integer_literal("08"));
    EXPECT_FALSE(parse_integer_literal("99999999999999999999"));
}

TEST(Fold, PrecedenceAndParentheses) {
    EXPECT_EQ(fold("2 + 3 * 4").value, 14);
    EXPECT_EQ(fold("(2 + 3) * 4").value, 20);
    EXPECT_EQ(fold("1 << 2 + 1").value, 8);
    EXPECT_EQ(fold("100 / 10 / 5").value, 2);
    EXPECT_EQ(fold("10 - 3 - 2").value, 5);
    EXPECT_EQ(fold("-(3) + ~0 + !0").value, -3);
    EXPECT_EQ(fold("1 ? 5 : 7").value, 5);
    EXPECT_EQ(fold("((((4))))").value, 4);
    EXPECT_EQ(fold("0x10 >> 2 | 1").value, 5);
}

TEST(Fold, MacrosUsingMacros) {
    auto v = fold("B * 2", {{"A", "(1 + 1)"}, {"B", "(A << 1)"}});
    EXPECT_EQ(v.value, 8);
}

TEST(Fold, NamesFromElsewhereNeedTheSemanticEngine) {
    auto v = fold("TPM_TIMEOUT");
    EXPECT_FALSE(v.value);
    EXPECT_TRUE(v.needs_semantic);
    EXPECT_FALSE(v.non_constant);
    EXPECT_TRUE(fold("(unsigned long)3").needs_semantic);
    EXPECT_TRUE(fold("DIV_ROUND_UP(3, 2)").needs_semantic);
    EXPECT_TRUE(fold("sizeof(int)").needs_semantic);
    EXPECT_TRUE(fold("1 / 0").needs_semantic);
}

TEST(Fold, VariablesAreNotConstantsAndNotGuessed) {
    auto v = fold("delay * 2", {}, {"delay"});
    EXPECT_FALSE(v.value);
    EXPECT_TRUE(v.non_constant);
    EXPECT_FALSE(v.needs_semantic);
    // A variable further on settles it even after an unknown name.
    auto w = fold("HEADER_MS + delay", {}, {"delay"});
    EXPECT_TRUE(w.non_constant);
    EXPECT_FALSE(w.needs_semantic);
    EXPECT_TRUE(fold("dev->delay").non_constant);
}

TEST(Fold, SelfReferenceDoesNotLoop) {
    auto v = fold("X", {{"X", "(X + 1)"}});
    EXPECT_FALSE(v.value);
    EXPECT_TRUE(v.needs_semantic);
}

} // namespace
} // namespace ksweep
