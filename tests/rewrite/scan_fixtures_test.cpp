// The scanner on our own small C fixtures (tests/fixtures/scan, a stand-in kernel tree): each
// resolution kind, macros in macros, calls in #define bodies, #if 0 and #ifdef branches,
// comments and strings, and a file that does not parse.
#include "scan_test_support.h"

#include <algorithm>

namespace ksweep {
namespace {

using testing::at_line;
using testing::scan_fixture;

TEST(ScanFixtures, LiteralsInEveryCForm) {
    auto r = scan_fixture("drivers/fixture/literals.c");
    ASSERT_EQ(r.findings.size(), 8u);
    const long long expected[] = {1, 16, 5, 10, 8, 25, 0, 2};
    for (size_t i = 0; i < 8; ++i) {
        const Finding& f = r.findings[i];
        EXPECT_EQ(f.value, expected[i]) << f.call;
        EXPECT_EQ(f.resolution, Resolution::Literal) << f.call;
        EXPECT_EQ(f.engine, Engine::Lexical) << f.call; // nothing needed the semantic engine
        EXPECT_EQ(f.function, "literal_forms");
        EXPECT_EQ(f.actionable, expected[i] > 0 && expected[i] < 20) << f.call;
    }
    // Parsed for the loops around the calls only: their values stay the lexical engine's.
    EXPECT_EQ(r.files_semantic, 1u);
}

TEST(ScanFixtures, PositionsAndOffsetsCoverTheCall) {
    auto r = scan_fixture("drivers/fixture/literals.c");
    const Finding& f = at_line(r, 8); // "\tmsleep(0x10);"
    EXPECT_EQ(f.column, 2u);
    EXPECT_EQ(f.call, "msleep(0x10)");
    EXPECT_EQ(f.argument, "0x10");
    EXPECT_EQ(f.call_end - f.call_begin, f.call.size());
    EXPECT_EQ(f.arg_end - f.arg_begin, 4u);
    const Finding& spaced = at_line(r, 14); // "msleep (2)"
    EXPECT_EQ(spaced.call, "msleep (2)");
}

TEST(ScanFixtures, SameFileMacrosThroughOtherMacros) {
    auto r = scan_fixture("drivers/fixture/macros.c");
    ASSERT_EQ(r.findings.size(), 6u);
    const Finding& base = at_line(r, 14);
    EXPECT_EQ(base.value, 2);
    EXPECT_EQ(base.resolution, Resolution::Macro);
    EXPECT_EQ(base.constant, "FOO_BASE_MS");
    EXPECT_EQ(base.defined_at, "drivers/fixture/macros.c:5");
    EXPECT_EQ(at_line(r, 15).value, 4);  // (FOO_BASE_MS * 2)
    EXPECT_EQ(at_line(r, 16).value, 4);  // ((4 + (1 << 2)) - (16 >> 2))
    EXPECT_EQ(at_line(r, 17).value, 20); // continued line; 20 is not actionable
    EXPECT_FALSE(at_line(r, 17).actionable);
    const Finding& sum = at_line(r, 18);
    EXPECT_EQ(sum.value, 3);
    EXPECT_EQ(sum.resolution, Resolution::Expression);
}

TEST(ScanFixtures, SameFileMacrosLexically) {
    auto r = scan_fixture("drivers/fixture/macros.c", /*semantic=*/false);
    const Finding& nested = at_line(r, 16);
    EXPECT_EQ(nested.value, 4);
    EXPECT_EQ(nested.resolution, Resolution::Macro);
    EXPECT_EQ(nested.engine, Engine::Lexical);
    EXPECT_EQ(nested.defined_at, "drivers/fixture/macros.c:7");
    EXPECT_EQ(at_line(r, 17).value, 20);
}

TEST(ScanFixtures, CastsNeedTheSemanticEngine) {
    auto lexical = scan_fixture("drivers/fixture/macros.c", /*semantic=*/false);
    EXPECT_FALSE(at_line(lexical, 19).value); // ((unsigned int)3)
    EXPECT_EQ(at_line(lexical, 19).resolution, Resolution::Unresolved);

    auto full = scan_fixture("drivers/fixture/macros.c");
    const Finding& cast = at_line(full, 19);
    EXPECT_EQ(cast.value, 3);
    EXPECT_EQ(cast.resolution, Resolution::Macro);
    EXPECT_EQ(cast.engine, Engine::Semantic);
    EXPECT_EQ(cast.defined_at, "drivers/fixture/macros.c:10");
    EXPECT_EQ(full.files_semantic, 1u);
}

TEST(ScanFixtures, HeaderMacrosEnumsAndExpressions) {
    auto r = scan_fixture("drivers/fixture/headers.c");
    ASSERT_EQ(r.findings.size(), 7u);
    const Finding& macro = at_line(r, 12);
    EXPECT_EQ(macro.value, 4);
    EXPECT_EQ(macro.resolution, Resolution::Macro);
    EXPECT_EQ(macro.defined_at, "include/linux/fixture_timeouts.h:6");
    EXPECT_EQ(macro.engine, Engine::Semantic);
    EXPECT_EQ(at_line(r, 13).value, 40); // HDR_SLOW_MS, a macro of a macro
    const Finding& enumerator = at_line(r, 14);
    EXPECT_EQ(enumerator.value, 5);
    EXPECT_EQ(enumerator.resolution, Resolution::Enum);
    EXPECT_EQ(enumerator.constant, "FIX_TIMEOUT");
    EXPECT_EQ(enumerator.defined_at, "include/linux/fixture_timeouts.h:10");
    EXPECT_TRUE(enumerator.actionable);
    EXPECT_FALSE(at_line(r, 15).actionable); // FIX_TIMEOUT_LONG = 50
    const Finding& expr = at_line(r, 16);
    EXPECT_EQ(expr.value, 10);
    EXPECT_EQ(expr.resolution, Resolution::Expression);
    for (unsigned line : {17u, 18u}) { // a parameter and a member: never guessed
        EXPECT_FALSE(at_line(r, line).value) << line;
        EXPECT_EQ(at_line(r, line).resolution, Resolution::Unresolved);
        EXPECT_FALSE(at_line(r, line).actionable);
    }
}

TEST(ScanFixtures, HeaderNamesStayUnresolvedWithoutTheSemanticEngine) {
    auto r = scan_fixture("drivers/fixture/headers.c", /*semantic=*/false);
    EXPECT_FALSE(at_line(r, 14).value);
    EXPECT_EQ(at_line(r, 14).engine, Engine::Lexical);
    EXPECT_EQ(r.files_semantic, 0u);
    // Only the engine that did not run could fold them; variables no engine could.
    EXPECT_TRUE(at_line(r, 14).unevaluated);
    EXPECT_FALSE(at_line(r, 17).unevaluated); // msleep(delay)
    EXPECT_FALSE(at_line(r, 18).unevaluated); // msleep(dev->delay)
    auto parsed = scan_fixture("drivers/fixture/headers.c");
    EXPECT_FALSE(at_line(parsed, 14).unevaluated);
}

TEST(ScanFixtures, CallsInsideDefineBodies) {
    auto r = scan_fixture("drivers/fixture/macro_body.c");
    ASSERT_EQ(r.findings.size(), 2u);
    const Finding& shortw = at_line(r, 6);
    EXPECT_TRUE(shortw.in_macro_body);
    EXPECT_EQ(shortw.value, 3);
    EXPECT_EQ(shortw.function, ""); // a #define is at file scope
    const Finding& param = at_line(r, 7);
    EXPECT_TRUE(param.in_macro_body);
    EXPECT_FALSE(param.value);         // msleep(ms): the macro's parameter
    EXPECT_TRUE(r.macro_uses.empty()); // not asked for
}

TEST(ScanFixtures, MacroUsesAreFoundAtTheUseWhenAsked) {
    ScanOptions options;
    options.tree = testing::scan_fixture_tree();
    options.paths = {"drivers/fixture/macro_body.c"};
    options.jobs = 1;
    options.macro_uses = true;
    auto r = scan_tree(testing::msleep_rule(), options);
    ASSERT_EQ(r.macro_uses.size(), 2u);
    EXPECT_EQ(r.macro_uses[0].line, 11u);
    EXPECT_EQ(r.macro_uses[0].call, "body_wait_short()");
    EXPECT_EQ(r.macro_uses[0].constant, "body_wait_short");
    EXPECT_EQ(r.macro_uses[0].value, 3);
    EXPECT_EQ(r.macro_uses[0].defined_at, "drivers/fixture/macro_body.c:6");
    EXPECT_EQ(r.macro_uses[0].function, "macro_body_users");
    EXPECT_EQ(r.macro_uses[1].call, "body_wait(7)");
    EXPECT_EQ(r.macro_uses[1].argument, "7");
    EXPECT_EQ(r.macro_uses[1].value, 7);
    EXPECT_TRUE(r.macro_uses[1].actionable);
    // The calls themselves read as a scan without macro uses reads them.
    EXPECT_FALSE(at_line(r, 7).value);
}

TEST(ScanFixtures, InactiveBranchesAreReportedAndMarked) {
    auto r = scan_fixture("drivers/fixture/conditional.c");
    ASSERT_EQ(r.findings.size(), 5u);
    EXPECT_TRUE(at_line(r, 9).inactive);   // #if 0
    EXPECT_TRUE(at_line(r, 12).inactive);  // #ifdef CONFIG_FIXTURE_NOT_SET
    EXPECT_FALSE(at_line(r, 14).inactive); // its #else
    EXPECT_FALSE(at_line(r, 17).inactive); // #if 1
    EXPECT_EQ(at_line(r, 17).value, 5);
    EXPECT_TRUE(at_line(r, 19).inactive); // #if 1 ... #else
    EXPECT_EQ(at_line(r, 9).value, 1);    // still resolved, for the record
}

TEST(ScanFixtures, LexicalOnlyMarksOnlyWhatTheTextDecides) {
    auto r = scan_fixture("drivers/fixture/conditional.c", /*semantic=*/false);
    EXPECT_TRUE(at_line(r, 9).inactive);
    EXPECT_FALSE(at_line(r, 12).inactive); // #ifdef: only the configuration knows
    EXPECT_TRUE(at_line(r, 19).inactive);
}

TEST(ScanFixtures, VariablesInDeclaratorListsNeedNoParse) {
    auto r = scan_fixture("drivers/fixture/locals.c");
    ASSERT_EQ(r.findings.size(), 3u);
    for (const auto& f : r.findings) {
        EXPECT_FALSE(f.value) << f.call;
        EXPECT_EQ(f.engine, Engine::Lexical) << f.call;
        EXPECT_EQ(f.note.rfind("not a constant", 0), 0u) << f.call << ": " << f.note;
    }
    // Nothing left for the semantic engine to settle; it parses the file for the loops alone.
    EXPECT_EQ(r.files_semantic, 1u);
    EXPECT_EQ(r.files_fallback, 0u);
}

TEST(ScanFixtures, CommentsStringsMembersAndDeclarationsAreNotCalls) {
    auto r = scan_fixture("drivers/fixture/comments.c");
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].value, 4);
    EXPECT_EQ(r.findings[0].line, 18u);
    EXPECT_EQ(r.findings[0].function, "not_calls");
}

TEST(ScanFixtures, FileThatDoesNotParseFallsBackToLexical) {
    auto r = scan_fixture("drivers/fixture/broken.c");
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.files_fallback, 1u);
    EXPECT_EQ(r.files_semantic, 0u);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].find("drivers/fixture/broken.c"), std::string::npos);
    const Finding& literal = at_line(r, 10);
    EXPECT_EQ(literal.value, 7);
    EXPECT_EQ(literal.engine, Engine::Lexical);
    const Finding& header = at_line(r, 11);
    EXPECT_FALSE(header.value);
    EXPECT_NE(header.note.find("semantic parse failed"), std::string::npos) << header.note;
}

TEST(ScanFixtures, WholeTreeIsSortedAndPredictsSleeps) {
    ScanOptions options;
    options.tree = testing::scan_fixture_tree();
    options.jobs = 3;
    options.hz = 250;
    size_t progress_calls = 0;
    options.progress = [&](size_t done, size_t total) {
        ++progress_calls;
        EXPECT_LE(done, total);
    };
    auto r = scan_tree(testing::msleep_rule(), options);
    EXPECT_EQ(r.files_scanned, 13u); // 9 .c and 4 .h
    EXPECT_EQ(progress_calls, 13u);
    EXPECT_TRUE(std::is_sorted(r.findings.begin(), r.findings.end(), [](auto& a, auto& b) {
        return a.file < b.file || (a.file == b.file && a.call_begin < b.call_begin);
    }));
    // msleep(1) at HZ=250 before v6.12: 1 jiffy + the extra one + the wheel's rounding.
    auto it = std::find_if(r.findings.begin(), r.findings.end(),
                           [](auto& f) { return f.call == "msleep(1)" && !f.inactive; });
    ASSERT_NE(it, r.findings.end());
    const Finding& one = *it;
    EXPECT_DOUBLE_EQ(one.predicted_sleep_ms,
                     predicted_sleep_ms(CallForm{"msleep"}, 1, 250, msleep_extra_jiffy(r.kernel)));
    EXPECT_GT(one.predicted_sleep_ms, 10.0);
}

TEST(ScanFixtures, UnusableTreesThrow) {
    ScanOptions options;
    options.tree = testing::scan_fixture_tree() + "/no-such-dir";
    EXPECT_THROW(scan_tree(testing::msleep_rule(), options), std::runtime_error);
    options.tree = testing::scan_fixture_tree() + "/drivers"; // no Makefile with a version
    EXPECT_THROW(scan_tree(testing::msleep_rule(), options), std::runtime_error);
    options.tree = testing::scan_fixture_tree();
    options.paths = {"drivers/nothing-here"};
    EXPECT_THROW(scan_tree(testing::msleep_rule(), options), std::runtime_error);
}

TEST(ScanBuffer, ScansEditedTextAsIfInTheTree) {
    // The fixer re-scans text it has not written yet: header lookups still use the tree.
    std::string text = "#include <linux/delay.h>\n#include <linux/fixture_timeouts.h>\n"
                       "void f(void)\n{\n\tmsleep(FIX_TIMEOUT);\n\tmsleep(3);\n}\n";
    ScanOptions options;
    options.tree = testing::scan_fixture_tree();
    auto r = scan_buffer(testing::msleep_rule(), options, "drivers/fixture/new.c", text);
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[0].file, "drivers/fixture/new.c");
    EXPECT_EQ(r.findings[0].value, 5);
    EXPECT_EQ(r.findings[0].resolution, Resolution::Enum);
    EXPECT_EQ(r.findings[0].function, "f");
    EXPECT_EQ(r.findings[1].line, 6u);
    EXPECT_EQ(
        text.substr(r.findings[1].call_begin, r.findings[1].call_end - r.findings[1].call_begin),
        "msleep(3)");
}

TEST(ScanBuffer, AnotherRuleFunctionIsData) {
    Rule rule = testing::msleep_rule();
    rule.add(CallForm{"msleep_interruptible"});
    std::string text = "void f(void)\n{\n\tmsleep_interruptible(5);\n\tmsleep(6);\n}\n";
    ScanOptions options;
    options.tree = testing::scan_fixture_tree();
    options.semantic = false;
    auto r = scan_buffer(rule, options, "drivers/fixture/other.c", text);
    ASSERT_EQ(r.findings.size(), 2u);
    EXPECT_EQ(r.findings[0].callee, "msleep_interruptible");
    EXPECT_EQ(r.findings[0].value, 5);
}

} // namespace
} // namespace ksweep
