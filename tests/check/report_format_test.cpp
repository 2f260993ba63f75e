// The three output formats on a fixed report: checkpatch.pl's shapes (from its report() and
// process(); tests/integration/check_checkpatch_test.cpp compares with the real script), and
// JSON / SARIF that parse and carry the fields consumers read.
#include "check/report_format.h"

#include <gtest/gtest.h>
#include <llvm/Support/JSON.h>

namespace ksweep::check {
namespace {

std::string str(const llvm::json::Object* o, llvm::StringRef key) {
    auto v = o->getString(key);
    return v ? v->str() : "<missing>";
}

long long num(const llvm::json::Object* o, llvm::StringRef key) {
    auto v = o->getInteger(key);
    return v ? *v : -1;
}

InputReport sample_report() {
    Warning w;
    w.finding.file = "drivers/foo/foo.c";
    w.finding.line = 13;
    w.finding.column = 2;
    w.finding.callee = "msleep";
    w.finding.call = "msleep(3)";
    w.finding.argument = "3";
    w.finding.value_ms = 3;
    w.finding.resolution = Resolution::Literal;
    w.input_line = 18;
    w.added_line = "\tmsleep(3);";
    w.suggestion = "usleep_range(3000, 3750)";
    w.message = "msleep(3) < 20ms can sleep for up to 12ms at HZ=250; use usleep_range(3000, "
                "3750); see Documentation/timers/timers-howto.rst";
    return InputReport{"p.patch", "p.patch", {w}, 7, 1, {}, {}};
}

const char* kMessage = "msleep(3) < 20ms can sleep for up to 12ms at HZ=250; use usleep_range("
                       "3000, 3750); see Documentation/timers/timers-howto.rst";

TEST(TextFormat, CheckpatchDefault) {
    EXPECT_EQ(format_text({sample_report()}, {}),
              std::string("WARNING: ") + kMessage +
                  "\n#18: FILE: drivers/foo/foo.c:13:\n+\tmsleep(3);\n\n"
                  "total: 0 errors, 1 warnings, 7 lines checked\n\n"
                  "p.patch has small msleep() calls, please review.\n");
}

TEST(TextFormat, TerseShowfileShowTypes) {
    TextStyle terse;
    terse.terse = true;
    EXPECT_EQ(format_text({sample_report()}, terse),
              std::string("p.patch:18: WARNING: ") + kMessage +
                  "\ntotal: 0 errors, 1 warnings, 7 lines checked\n");
    TextStyle showfile;
    showfile.showfile = true;
    showfile.show_types = true;
    EXPECT_EQ(format_text({sample_report()}, showfile),
              std::string("drivers/foo/foo.c:13: WARNING:MSLEEP: ") + kMessage +
                  "\n+\tmsleep(3);\n\ntotal: 0 errors, 1 warnings, 7 lines checked\n\n"
                  "p.patch has small msleep() calls, please review.\n");
}

TEST(TextFormat, B4PerPatchCheck) {
    // b4 runs: checkpatch.pl --terse --no-summary --mailback --showfile
    TextStyle b4{true, true, false, false, true};
    EXPECT_EQ(format_text({sample_report()}, b4),
              std::string("drivers/foo/foo.c:13: WARNING: ") + kMessage + "\n");
    InputReport clean{"q.patch", "q.patch", {}, 5, 1, {}, {}};
    EXPECT_EQ(format_text({clean}, b4), "");
}

TEST(TextFormat, SeveralInputsAreHeadedLikeCheckpatch) {
    InputReport clean{"q.patch", "q.patch", {}, 5, 1, {}, {}};
    std::string out = format_text({sample_report(), clean}, {});
    EXPECT_EQ(out.rfind("-------\np.patch\n-------\nWARNING: ", 0), 0u) << out;
    EXPECT_NE(out.find("-------\nq.patch\n-------\ntotal: 0 errors, 0 warnings, 5 lines checked\n\n"
                       "q.patch has no small msleep() calls on added lines.\n"),
              std::string::npos)
        << out;
}

TEST(JsonFormat, CarriesTheFinding) {
    Rule rule;
    rule.name = "msleep_small";
    auto parsed = llvm::json::parse(format_json({sample_report()}, rule, {"0.1.0", "/t", 250, {}}));
    ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
    const auto* root = parsed->getAsObject();
    EXPECT_EQ(num(root, "hz"), 250);
    const auto* w = root->getArray("inputs")->front().getAsObject()->getArray("warnings");
    ASSERT_EQ(w->size(), 1u);
    const auto* first = w->front().getAsObject();
    EXPECT_EQ(str(first, "file"), "drivers/foo/foo.c");
    EXPECT_EQ(num(first, "patch_line"), 18);
    EXPECT_EQ(num(first, "value_ms"), 3);
    EXPECT_EQ(str(first, "suggestion"), "usleep_range(3000, 3750)");
    EXPECT_EQ(num(root->getObject("total"), "warnings"), 1);
}

TEST(SarifFormat, IsSarif210WithRuleResultLocationAndFix) {
    Rule rule;
    rule.name = "msleep_small";
    rule.summary = "msleep() below 20 ms";
    auto parsed =
        llvm::json::parse(format_sarif({sample_report()}, rule, {"0.1.0", "/t", 250, {}}));
    ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
    const auto* root = parsed->getAsObject();
    EXPECT_EQ(str(root, "version"), "2.1.0");
    const auto* run = root->getArray("runs")->front().getAsObject();
    const auto* driver = run->getObject("tool")->getObject("driver");
    EXPECT_EQ(str(driver, "name"), "ksweep");
    EXPECT_EQ(str(driver, "version"), "0.1.0");
    EXPECT_EQ(str(driver->getArray("rules")->front().getAsObject(), "id"), "msleep_small");
    const auto* result = run->getArray("results")->front().getAsObject();
    EXPECT_EQ(str(result, "ruleId"), "msleep_small");
    EXPECT_EQ(str(result, "level"), "warning");
    EXPECT_EQ(str(result->getObject("message"), "text"), kMessage);
    const auto* physical =
        result->getArray("locations")->front().getAsObject()->getObject("physicalLocation");
    EXPECT_EQ(str(physical->getObject("artifactLocation"), "uri"), "drivers/foo/foo.c");
    EXPECT_EQ(num(physical->getObject("region"), "startLine"), 13);
    EXPECT_EQ(num(physical->getObject("region"), "startColumn"), 2);
    const auto* replacement = result->getArray("fixes")
                                  ->front()
                                  .getAsObject()
                                  ->getArray("artifactChanges")
                                  ->front()
                                  .getAsObject()
                                  ->getArray("replacements")
                                  ->front()
                                  .getAsObject();
    EXPECT_EQ(num(replacement->getObject("deletedRegion"), "endColumn"), 11);
    EXPECT_EQ(str(replacement->getObject("insertedContent"), "text"), "usleep_range(3000, 3750)");
}

} // namespace
} // namespace ksweep::check
