#include "core/rule.h"

#include <gtest/gtest.h>

using namespace ksweep;

namespace {

std::string error_of(const std::string& yaml) {
    try {
        parse_rule(yaml, "r.yaml");
    } catch (const RuleError& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(Rule, ShippedRuleLoads) {
    Rule rule = load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
    EXPECT_EQ(rule.name, "msleep_small");
    EXPECT_EQ(rule.threshold_ms, 20);
    EXPECT_TRUE(rule.is_rule_function("msleep"));
    EXPECT_FALSE(rule.is_rule_function("usleep_range"));
    // drivers/char/tpm keeps upstream's fixed 300 µs (a233a0289cf9).
    Slack tpm = rule.slack_for("drivers/char/tpm/tpm_i2c_nuvoton.c");
    EXPECT_EQ(tpm.policy, SlackPolicy::Fixed);
    EXPECT_EQ(tpm.fixed_us, 300);
    EXPECT_EQ(rule.convertible.at("msecs_to_jiffies"), "usecs_to_jiffies");
}

TEST(Rule, Actionable) {
    Rule rule = parse_rule("name: r\nfunctions: [msleep]\nthreshold_ms: 20\n", "r.yaml");
    EXPECT_FALSE(rule.actionable(std::nullopt, 0));
    EXPECT_FALSE(rule.actionable(0, 8));
    EXPECT_TRUE(rule.actionable(1, 12));
    EXPECT_TRUE(rule.actionable(19, 28));
    EXPECT_TRUE(rule.actionable(0.5, 8)); // 500 us
    EXPECT_FALSE(rule.actionable(20, 28));
}

// threshold: hz judges the overshoot the sleep model predicts, not the request alone.
TEST(Rule, HzThresholdJudgesTheOvershoot) {
    Rule rule =
        parse_rule("name: r\nfunctions: [msleep]\nthreshold_ms: 20\nthreshold: hz\n", "r.yaml");
    EXPECT_EQ(rule.threshold, ThresholdPolicy::Hz);
    EXPECT_EQ(rule.overshoot_percent, 25);
    EXPECT_TRUE(rule.actionable(20, 28));  // 40 % over
    EXPECT_FALSE(rule.actionable(16, 20)); // exactly 25 %: not more
    EXPECT_FALSE(rule.actionable(100, 104));
    EXPECT_FALSE(rule.actionable(0, 4));
}

TEST(Rule, CallFormsAreData) {
    Rule rule =
        parse_rule("name: r\ntype: short_jiffy_sleep\nthreshold_ms: 20\ncalls:\n"
                   "  - {call: msleep_interruptible, interruptible: true}\n"
                   "  - {call: schedule_timeout_uninterruptible, through: usecs_to_jiffies,\n"
                   "     unit: us, sleep: jiffies, fix: unused_result}\n"
                   "  - {call: schedule_timeout, through: msecs_to_jiffies, sleep: jiffies,\n"
                   "     fix: never, why: state set by hand}\n",
                   "r.yaml");
    EXPECT_EQ(rule.type, "SHORT_JIFFY_SLEEP");
    ASSERT_EQ(rule.calls.size(), 3u);
    EXPECT_TRUE(rule.calls[0].interruptible);
    const CallForm* us = rule.form_for("schedule_timeout_uninterruptible", "usecs_to_jiffies");
    ASSERT_NE(us, nullptr);
    EXPECT_EQ(us->unit, Unit::Microseconds);
    EXPECT_EQ(us->fix, FixPolicy::UnusedResult);
    EXPECT_EQ(rule.form_for("schedule_timeout_uninterruptible", ""), nullptr);
    EXPECT_TRUE(rule.takes_through("schedule_timeout"));
    EXPECT_FALSE(rule.takes_through("msleep_interruptible"));
    EXPECT_EQ(rule.functions.size(), 3u);
}

TEST(Rule, CallFormErrorsArePositioned) {
    EXPECT_EQ(error_of("name: r\nthreshold_ms: 20\ncalls:\n  - {call: x, fix: never}\n"),
              "r.yaml:4:5: a form with 'fix: never' needs 'why' (said in the report)");
    EXPECT_EQ(error_of("name: r\nthreshold_ms: 20\ncalls:\n  - {call: x, unit: s}\n"),
              "r.yaml:4:21: unit must be ms or us, not 's'");
    EXPECT_EQ(error_of("name: r\nthreshold_ms: 20\n"),
              "r.yaml:1:1: a rule needs 'functions' or 'calls' (one of them)");
}

TEST(Rule, SecondRuleIsData) {
    Rule rule = parse_rule("name: msleep_interruptible_small\nfunctions: [msleep_interruptible]\n"
                           "threshold_ms: 20\n",
                           "r.yaml");
    EXPECT_TRUE(rule.is_rule_function("msleep_interruptible"));
}

TEST(Rule, LongestOverrideWins) {
    Rule rule = parse_rule("name: r\nfunctions: [msleep]\nthreshold_ms: 20\n"
                           "slack: {policy: acpi}\n"
                           "overrides:\n"
                           "  - path: drivers/\n    slack: {policy: fixed, us: 100}\n"
                           "  - path: drivers/char/\n    slack: {policy: fixed, us: 300}\n",
                           "r.yaml");
    EXPECT_EQ(rule.slack_for("drivers/char/x.c").fixed_us, 300);
    EXPECT_EQ(rule.slack_for("drivers/net/x.c").fixed_us, 100);
    EXPECT_EQ(rule.slack_for("sound/x.c").policy, SlackPolicy::Acpi);
}

TEST(Rule, SlackPolicies) {
    EXPECT_EQ(slack_us({SlackPolicy::Fixed, 300, 0, 0}, 1000), 300);
    EXPECT_EQ(slack_us({SlackPolicy::Percent, 0, 25, 50}, 10000), 2500);
    EXPECT_EQ(slack_us({SlackPolicy::Percent, 0, 25, 50}, 100), 50);
    EXPECT_EQ(slack_us({SlackPolicy::Acpi, 0, 0, 50}, 1000), 50);
    EXPECT_EQ(slack_us({SlackPolicy::Acpi, 0, 0, 50}, 19000), 190);
}

TEST(Rule, MalformedYamlSaysWhere) {
    EXPECT_EQ(error_of("name: r\nfunctions: [msleep\nthreshold_ms: 20\n").rfind("r.yaml:3:", 0), 0u)
        << error_of("name: r\nfunctions: [msleep\nthreshold_ms: 20\n");
}

TEST(Rule, WrongTypeSaysWhereAndWhat) {
    EXPECT_EQ(error_of("name: r\nfunctions: [msleep]\nthreshold_ms: soon\n"),
              "r.yaml:3:15: 'threshold_ms' must be an integer (milliseconds)");
}

TEST(Rule, UnknownKeyIsAnError) {
    EXPECT_EQ(error_of("name: r\nfunctions: [msleep]\nthreshold_ms: 20\nthreshhold: 3\n"),
              "r.yaml:4:1: unknown key 'threshhold'");
}

TEST(Rule, BadSlackPolicy) {
    EXPECT_EQ(error_of("name: r\nfunctions: [msleep]\nthreshold_ms: 20\n"
                       "slack: {policy: lots}\n"),
              "r.yaml:4:17: slack policy must be fixed, percent or acpi, not 'lots'");
}

TEST(Rule, MissingFile) {
    EXPECT_THROW(load_rule("/nonexistent/rule.yaml"), RuleError);
}

TEST(Rule, EmptyFileSaysWhere) {
    EXPECT_EQ(error_of(""), "r.yaml:1:1: a rule file must be a mapping");
}
