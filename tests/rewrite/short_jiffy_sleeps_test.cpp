// The second rule (rules/short_jiffy_sleeps.yaml) through the same scanner, sleep model and
// fixer as msleep_small: each callee form, values through headers and enums, the result's use,
// interruptible and hand-set-state calls (tests/fixtures/scan/drivers/fixture/jiffy_sleeps.c).
#include "core/file_io.h"
#include "core/sleep_model.h"
#include "rewrite/fixer.h"
#include "scan_test_support.h"
#include "test_files.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>

namespace ksweep {
namespace {

const char* const kFile = "drivers/fixture/jiffy_sleeps.c";

Rule jiffy_rule() {
    return load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/short_jiffy_sleeps.yaml");
}

ScanOptions fixture_options(bool semantic) {
    ScanOptions options;
    options.tree = testing::scan_fixture_tree();
    options.paths = {kFile};
    options.semantic = semantic;
    options.jobs = 1;
    options.hz = 250;
    return options;
}

std::string described(const Finding& f) {
    return std::to_string(f.line) + " " + f.callee + "/" + f.through + " " + f.argument + " = " +
           f.value_text() + " " + std::string(to_string(f.resolution)) +
           (f.result_used ? (*f.result_used ? " used" : "") : " unknown") +
           (f.actionable ? " ACTIONABLE" : "");
}

TEST(ShortJiffySleeps, EveryFormIsFoundWithItsUnitThroughHeadersAndEnums) {
    const ScanResult r = scan_tree(jiffy_rule(), fixture_options(true));
    std::vector<std::string> found;
    for (const Finding& f : r.findings) {
        EXPECT_EQ(f.rule, "short_jiffy_sleeps");
        found.push_back(described(f));
    }
    EXPECT_EQ(found,
              (std::vector<std::string>{
                  "13 schedule_timeout_uninterruptible/msecs_to_jiffies 3 = 3 ms literal unknown "
                  "ACTIONABLE",
                  "19 schedule_timeout_uninterruptible/msecs_to_jiffies 1 = 1 ms literal "
                  "ACTIONABLE",
                  "20 schedule_timeout_uninterruptible/usecs_to_jiffies HDR_POLL_US = 150 us macro "
                  "ACTIONABLE",
                  "21 schedule_timeout_uninterruptible/msecs_to_jiffies FIX_TIMEOUT = 5 ms enum "
                  "ACTIONABLE",
                  "22 schedule_timeout_uninterruptible/msecs_to_jiffies JS_SETTLE_MS = 2 ms macro "
                  "ACTIONABLE",
                  "24 schedule_timeout_uninterruptible/msecs_to_jiffies JS_SETTLE_MS + 1 = 3 ms "
                  "expression ACTIONABLE",
                  "25 schedule_timeout_uninterruptible/msecs_to_jiffies 4 = 4 ms literal used "
                  "ACTIONABLE",
                  "26 msleep_interruptible/ 5 = 5 ms literal ACTIONABLE",
                  "27 schedule_timeout_interruptible/msecs_to_jiffies 6 = 6 ms literal ACTIONABLE",
                  "28 schedule_timeout_killable/usecs_to_jiffies 700 = 700 us literal ACTIONABLE",
                  "29 schedule_timeout_idle/msecs_to_jiffies 7 = 7 ms literal ACTIONABLE",
                  "31 schedule_timeout/msecs_to_jiffies 8 = 8 ms literal ACTIONABLE",
                  "33 schedule_timeout_uninterruptible/msecs_to_jiffies FIX_TIMEOUT_LONG = 50 ms "
                  "enum",
              }));
    // schedule_timeout_uninterruptible(HZ / 10) is no shape of the rule: not a finding.
}

TEST(ShortJiffySleeps, HeaderNamesNeedTheSemanticEngine) {
    const ScanResult r = scan_tree(jiffy_rule(), fixture_options(false));
    const Finding& poll = testing::at_line(r, 20);
    EXPECT_FALSE(poll.value);
    EXPECT_TRUE(poll.unevaluated);
    EXPECT_EQ(testing::at_line(r, 22).value, 2); // same-file #define: lexical is enough
}

// The sleep model per form: msleep_interruptible() is msleep()'s (extra jiffy before v6.12),
// schedule_timeout() of a conversion sleeps the converted jiffies, rounded up by the wheel.
TEST(ShortJiffySleeps, EachFormHasItsSleepModel) {
    const Rule rule = jiffy_rule();
    const CallForm& interruptible = *rule.form_for("msleep_interruptible", "");
    const CallForm& ms = *rule.form_for("schedule_timeout_uninterruptible", "msecs_to_jiffies");
    const CallForm& us = *rule.form_for("schedule_timeout_uninterruptible", "usecs_to_jiffies");
    EXPECT_DOUBLE_EQ(predicted_sleep_ms(interruptible, 5, 250, true), 16.0);
    EXPECT_DOUBLE_EQ(predicted_sleep_ms(interruptible, 5, 250, false), 12.0);
    EXPECT_DOUBLE_EQ(predicted_sleep_ms(ms, 5, 250, true), 12.0);
    EXPECT_DOUBLE_EQ(predicted_sleep_ms(us, 150, 250, true), 8.0);
    EXPECT_DOUBLE_EQ(predicted_sleep_ms(us, 150, 1000, true), 2.0);
    EXPECT_DOUBLE_EQ(predicted_sleep_ms(us, 150, 100, true), 20.0);
    const ScanResult r = scan_tree(rule, fixture_options(true));
    EXPECT_EQ(testing::at_line(r, 20).predicted_by_hz,
              (std::vector<std::pair<int, double>>{{100, 20.0}, {250, 8.0}, {1000, 2.0}}));
}

const SiteOutcome* skipped_at(const FixResult& r, unsigned line) {
    auto it = std::find_if(r.skipped.begin(), r.skipped.end(),
                           [&](const SiteOutcome& s) { return s.finding.line == line; });
    return it == r.skipped.end() ? nullptr : &*it;
}

TEST(ShortJiffySleeps, FixRewritesOnlyWhatStaysEquivalent) {
    const Rule rule = jiffy_rule();
    const ScanOptions options = fixture_options(true);
    const FixResult r = plan_fixes(rule, options, scan_tree(rule, options));
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_EQ(r.files[0].fixed,
              *read_file(std::string(KSWEEP_FIXTURES) + "/fix/jiffy_sleeps.expected.c"));
    EXPECT_EQ(r.files[0].sites.size(), 5u);
    EXPECT_EQ(r.files[0].slack_name, "JS_DELAY_RANGE");
    const std::map<unsigned, std::string> why = {
        {13, "spelled in a #define: whether its result (the time left) is used is not known"},
        {25, "its result (the time left) is used"},
        {26, "msleep_interruptible() wakes on a signal and returns the time left, usleep_range() "
             "does neither: left alone (the rule's allow_losing_interruptibility is off)"},
        {29, "sleeps in TASK_IDLE (not counted in the load average); usleep_range() would be: "
             "left alone"},
        {31, "sleeps in the task state set by hand before it (set_current_state()): a wait, "
             "left alone"},
    };
    for (const auto& [line, reason] : why) {
        const SiteOutcome* s = skipped_at(r, line);
        ASSERT_NE(s, nullptr) << line;
        EXPECT_EQ(s->reason, reason) << line;
    }
}

TEST(ShortJiffySleeps, LosingInterruptibilityIsThePolicysChoice) {
    Rule rule = jiffy_rule();
    rule.allow_losing_interruptibility = true;
    const ScanOptions options = fixture_options(true);
    const FixResult r = plan_fixes(rule, options, scan_tree(rule, options));
    ASSERT_EQ(r.files.size(), 1u);
    const std::string& text = r.files[0].fixed;
    EXPECT_EQ(text.find("msleep_interruptible(5)"), std::string::npos) << text;
    EXPECT_NE(text.find("usleep_range(5000, 5000 + JS_DELAY_RANGE);"), std::string::npos);
    EXPECT_NE(text.find("usleep_range(6000, 6000 + JS_DELAY_RANGE);"), std::string::npos);
    EXPECT_NE(text.find("usleep_range(700, 700 + JS_DELAY_RANGE);"), std::string::npos);
    // The time left that is read stays a schedule_timeout.
    EXPECT_NE(text.find("left = schedule_timeout_uninterruptible(msecs_to_jiffies(4));"),
              std::string::npos);
}

// Both rules in one fix: the second works on the text the first left, lines stay the tree's.
TEST(ShortJiffySleeps, RulesFixInTurnOnOneFile) {
    const std::vector<Rule> rules = {testing::msleep_rule(), jiffy_rule()};
    ScanOptions options = fixture_options(true);
    const std::string text = "#include <linux/delay.h>\n#include <linux/jiffies.h>\n"
                             "#include <linux/sched.h>\n\n#define TWO_MS 2\n\n"
                             "static void two(void)\n{\n\tmsleep(TWO_MS);\n"
                             "\tmsleep_interruptible(3);\n"
                             "\tschedule_timeout_uninterruptible(msecs_to_jiffies(4));\n}\n";
    TempDir tree("ksweep-two-rules");
    std::filesystem::copy(testing::scan_fixture_tree(), tree.path(),
                          std::filesystem::copy_options::recursive);
    test::write_file(tree.path() / "drivers/fixture/two.c", text);
    options.tree = tree.path().string();
    options.paths = {"drivers/fixture/two.c"};
    const FixResult r = plan_fixes(rules, options, scan_tree(rules, options));
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_NE(r.files[0].fixed.find("usleep_range(TWO_MS * USEC_PER_MSEC,"), std::string::npos)
        << r.files[0].fixed;
    EXPECT_NE(r.files[0].fixed.find("usleep_range(4000, 4000 + TWO_DELAY_RANGE);"),
              std::string::npos)
        << r.files[0].fixed;
    EXPECT_EQ(r.files[0].sites.size(), 2u);
    // Line 10 of the tree's file; the text the first rule left has it on line 11.
    const SiteOutcome* interruptible = skipped_at(r, 10);
    ASSERT_NE(interruptible, nullptr);
    EXPECT_EQ(interruptible->finding.callee, "msleep_interruptible");
}

} // namespace
} // namespace ksweep
