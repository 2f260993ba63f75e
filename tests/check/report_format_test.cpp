// The three output formats on fixed reports: checkpatch.pl's shapes (from its report() and
// process(); tests/integration/check_checkpatch_test.cpp compares with the real script), and
// JSON / SARIF that parse and carry the fields consumers read, for a small sleep (WARNING) and
// a call whose constant could not be evaluated (CHECK:MSLEEP_UNRESOLVED).
#include "check/report_format.h"
#include "json_fields.h"

#include <gtest/gtest.h>

namespace ksweep::check {
namespace {

using test::parse_json;

std::string str(const Json& o, const char* key) {
    return test::json_string(o, key, "<missing>");
}

long long num(const Json& o, const char* key) {
    return test::json_integer(o, key, -1);
}

std::vector<Rule> msleep_rule() {
    Rule rule;
    rule.name = "msleep_small";
    rule.summary = "msleep() below 20 ms";
    rule.add(CallForm{"msleep"});
    rule.type = "MSLEEP";
    return {rule};
}

const char* kMessage = "msleep(3) < 20ms can sleep for up to 12ms at HZ=250; use usleep_range("
                       "3000, 3000 + FOO_DELAY_RANGE); see Documentation/timers/timers-howto.rst";
const char* kUnresolved = "msleep(FOO_BOARD_DELAY): FOO_BOARD_DELAY could not be evaluated: the "
                          "semantic engine is off (--lexical-only)";

Warning sample_warning() {
    Warning w;
    w.type = "MSLEEP";
    w.finding.file = "drivers/foo/foo.c";
    w.finding.line = 13;
    w.finding.column = 2;
    w.finding.callee = "msleep";
    w.finding.call = "msleep(3)";
    w.finding.argument = "3";
    w.finding.value = 3;
    w.finding.resolution = Resolution::Literal;
    w.input_line = 18;
    w.added_line = "\tmsleep(3);";
    w.advice.replacement = "usleep_range(3000, 3000 + FOO_DELAY_RANGE)";
    w.advice.how = "literal in usec";
    w.message = kMessage;
    return w;
}

Warning sample_check() {
    Warning w;
    w.level = "CHECK";
    w.type = "MSLEEP_UNRESOLVED";
    w.finding.file = "drivers/foo/foo.c";
    w.finding.line = 20;
    w.finding.column = 2;
    w.finding.call = "msleep(FOO_BOARD_DELAY)";
    w.input_line = 25;
    w.added_line = "\tmsleep(FOO_BOARD_DELAY);";
    w.message = kUnresolved;
    return w;
}

InputReport sample_report() {
    return InputReport{"p.patch", "p.patch", {sample_warning()}, 7, 1, {}, {}};
}

TEST(TextFormat, CheckpatchDefault) {
    EXPECT_EQ(format_text({sample_report()}, msleep_rule(), {}),
              std::string("WARNING: ") + kMessage +
                  "\n#18: FILE: drivers/foo/foo.c:13:\n+\tmsleep(3);\n\n"
                  "total: 0 errors, 1 warnings, 7 lines checked\n\n"
                  "p.patch has small msleep() calls, please review.\n");
}

TEST(TextFormat, TerseShowfileShowTypes) {
    TextStyle terse;
    terse.terse = true;
    EXPECT_EQ(format_text({sample_report()}, msleep_rule(), terse),
              std::string("p.patch:18: WARNING: ") + kMessage +
                  "\ntotal: 0 errors, 1 warnings, 7 lines checked\n");
    TextStyle showfile;
    showfile.showfile = true;
    showfile.show_types = true;
    EXPECT_EQ(format_text({sample_report()}, msleep_rule(), showfile),
              std::string("drivers/foo/foo.c:13: WARNING:MSLEEP: ") + kMessage +
                  "\n+\tmsleep(3);\n\ntotal: 0 errors, 1 warnings, 7 lines checked\n\n"
                  "p.patch has small msleep() calls, please review.\n");
}

TEST(TextFormat, B4PerPatchCheck) {
    // b4 runs: checkpatch.pl --terse --no-summary --mailback --showfile
    TextStyle b4{true, true, false, false, true};
    EXPECT_EQ(format_text({sample_report()}, msleep_rule(), b4),
              std::string("drivers/foo/foo.c:13: WARNING: ") + kMessage + "\n");
    InputReport clean{"q.patch", "q.patch", {}, 5, 1, {}, {}};
    EXPECT_EQ(format_text({clean}, msleep_rule(), b4), "");
}

TEST(TextFormat, SeveralInputsAreHeadedLikeCheckpatch) {
    InputReport clean{"q.patch", "q.patch", {}, 5, 1, {}, {}};
    std::string out = format_text({sample_report(), clean}, msleep_rule(), {});
    EXPECT_EQ(out.rfind("-------\np.patch\n-------\nWARNING: ", 0), 0u) << out;
    EXPECT_NE(out.find("-------\nq.patch\n-------\ntotal: 0 errors, 0 warnings, 5 lines checked\n\n"
                       "q.patch has no small msleep() calls.\n"),
              std::string::npos)
        << out;
}

// A cover letter is a note on stderr, not a block of its own.
TEST(TextFormat, ACoverLetterAloneIsNotShown) {
    InputReport cover{"0000-cover-letter.patch", "0000-cover-letter.patch", {}, 0, 0, {}, {"x"}};
    std::string out = format_text({cover, sample_report()}, msleep_rule(), {});
    EXPECT_EQ(out.find("0000-cover-letter"), std::string::npos) << out;
    EXPECT_EQ(out.rfind("WARNING: ", 0), 0u) << out; // one input left: no header lines
}

// An unresolved call is a CHECK, as checkpatch.pl --strict prints its checks, counted apart
// from warnings; the verdict line never says clean.
TEST(TextFormat, AnUnresolvedCallIsACheckCountedApart) {
    InputReport r{"p.patch", "p.patch", {}, 9, 1, {sample_check()}, {}};
    TextStyle types;
    types.show_types = true;
    EXPECT_EQ(format_text({r}, msleep_rule(), types),
              std::string("CHECK:MSLEEP_UNRESOLVED: ") + kUnresolved +
                  "\n#25: FILE: drivers/foo/foo.c:20:\n+\tmsleep(FOO_BOARD_DELAY);\n\n"
                  "total: 0 errors, 0 warnings, 1 checks, 9 lines checked\n\n"
                  "p.patch has msleep() calls ksweep could not evaluate, please review.\n");
    // Warnings and checks in the order of the input.
    r.warnings.push_back(sample_warning());
    TextStyle terse;
    terse.terse = true;
    EXPECT_EQ(format_text({r}, msleep_rule(), terse),
              std::string("p.patch:18: WARNING: ") + kMessage + "\np.patch:25: CHECK: " +
                  kUnresolved + "\ntotal: 0 errors, 1 warnings, 1 checks, 9 lines checked\n");
}

// A call the patch does not touch, made small by what it redefines: shown as context.
TEST(TextFormat, AnUnchangedCallIsShownAsContext) {
    InputReport r = sample_report();
    r.warnings[0].line_added = false;
    std::string out = format_text({r}, msleep_rule(), {});
    EXPECT_NE(out.find("#18: FILE: drivers/foo/foo.c:13:\n \tmsleep(3);\n"), std::string::npos)
        << out;
}

TEST(JsonFormat, CarriesWarningsChecksNotesAndTheFix) {
    InputReport r = sample_report();
    r.unresolved.push_back(sample_check());
    r.notes.push_back("0000-cover-letter.patch: cover letter ([PATCH 0/2]), no diff: skipped");
    const Json root = parse_json(format_json({r}, msleep_rule(), {"0.1.0", "/t", 250, {}}));
    ASSERT_TRUE(root.is_object());
    EXPECT_EQ(num(root, "hz"), 250);
    const Json& rule = root.at("rules").front();
    EXPECT_EQ(str(rule, "type"), "MSLEEP");
    EXPECT_EQ(str(rule, "unresolved_type"), "MSLEEP_UNRESOLVED");
    const Json& input = root.at("inputs").front();
    const Json& w = input.at("warnings");
    ASSERT_EQ(w.size(), 1u);
    const Json& first = w.front();
    EXPECT_EQ(str(first, "level"), "WARNING");
    EXPECT_EQ(str(first, "file"), "drivers/foo/foo.c");
    EXPECT_EQ(num(first, "patch_line"), 18);
    EXPECT_EQ(num(first, "value_ms"), 3);
    EXPECT_EQ(str(first, "suggestion"), "usleep_range(3000, 3000 + FOO_DELAY_RANGE)");
    EXPECT_EQ(str(first.at("fix"), "how"), "literal in usec");
    const Json& checks = input.at("checks");
    ASSERT_EQ(checks.size(), 1u);
    EXPECT_EQ(str(checks.front(), "type"), "MSLEEP_UNRESOLVED");
    EXPECT_EQ(input.at("notes").size(), 1u);
    EXPECT_EQ(num(root.at("total"), "warnings"), 1);
    EXPECT_EQ(num(root.at("total"), "checks"), 1);
}

TEST(SarifFormat, IsSarif210WithRuleResultLocationAndFix) {
    const Json root =
        parse_json(format_sarif({sample_report()}, msleep_rule(), {"0.1.0", "/t", 250, {}}));
    ASSERT_TRUE(root.is_object());
    EXPECT_EQ(str(root, "version"), "2.1.0");
    const Json& run = root.at("runs").front();
    const Json& driver = run.at("tool").at("driver");
    EXPECT_EQ(str(driver, "name"), "ksweep");
    EXPECT_EQ(str(driver, "version"), "0.1.0");
    EXPECT_EQ(str(driver.at("rules").front(), "id"), "msleep_small");
    const Json& result = run.at("results").front();
    EXPECT_EQ(str(result, "ruleId"), "msleep_small");
    EXPECT_EQ(str(result, "level"), "warning");
    EXPECT_EQ(str(result.at("message"), "text"), kMessage);
    const Json& physical = result.at("locations").front().at("physicalLocation");
    EXPECT_EQ(str(physical.at("artifactLocation"), "uri"), "drivers/foo/foo.c");
    EXPECT_EQ(num(physical.at("region"), "startLine"), 13);
    EXPECT_EQ(num(physical.at("region"), "startColumn"), 2);
    const Json& replacement =
        result.at("fixes").front().at("artifactChanges").front().at("replacements").front();
    EXPECT_EQ(num(replacement.at("deletedRegion"), "endColumn"), 11);
    EXPECT_EQ(str(replacement.at("insertedContent"), "text"),
              "usleep_range(3000, 3000 + FOO_DELAY_RANGE)");
}

// A fix that also needs a new #define is not a one-replacement SARIF fix; an unresolved call
// is an "open" result of the second rule.
TEST(SarifFormat, PartialFixesAreLeftOutAndUnresolvedCallsAreOpen) {
    InputReport r = sample_report();
    r.warnings[0].advice.slack_define = "#define FOO_DELAY_RANGE 750";
    r.unresolved.push_back(sample_check());
    const Json parsed = parse_json(format_sarif({r}, msleep_rule(), {"0.1.0", "/t", 250, {}}));
    ASSERT_TRUE(parsed.is_object());
    const Json& run = parsed.at("runs").front();
    // Per rule: its warning, its unresolved check, the loop budget warning.
    EXPECT_EQ(run.at("tool").at("driver").at("rules").size(), 3u);
    const Json& results = run.at("results");
    ASSERT_EQ(results.size(), 2u);
    EXPECT_FALSE(results[0].contains("fixes"));
    const Json& open = results[1];
    EXPECT_EQ(str(open, "ruleId"), "msleep_small/unresolved");
    EXPECT_EQ(num(open, "ruleIndex"), 1);
    EXPECT_EQ(str(open, "kind"), "open");
    EXPECT_EQ(str(open, "level"), "none");
}

// A loop whose budget a patch shortens is a warning of its own descriptor, with no fix.
TEST(SarifFormat, ALoopBudgetWarningHasItsOwnDescriptor) {
    InputReport r = sample_report();
    r.warnings[0].type = "MSLEEP_LOOP_BUDGET";
    r.warnings[0].finding.rule = "msleep_small";
    r.warnings[0].finding.call = "usleep_range(3000, 3500)";
    const Json parsed = parse_json(format_sarif({r}, msleep_rule(), {"0.1.0", "/t", 250, {}}));
    const Json& run = parsed.at("runs").front();
    EXPECT_EQ(str(run.at("tool").at("driver").at("rules")[2], "name"), "MSLEEP_LOOP_BUDGET");
    const Json& result = run.at("results").front();
    EXPECT_EQ(str(result, "ruleId"), "msleep_small/loop-budget");
    EXPECT_EQ(num(result, "ruleIndex"), 2);
    EXPECT_EQ(str(result, "level"), "warning");
    EXPECT_FALSE(result.contains("fixes"));
}

} // namespace
} // namespace ksweep::check
