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
    EXPECT_FALSE(rule.actionable(std::nullopt));
    EXPECT_FALSE(rule.actionable(0));
    EXPECT_TRUE(rule.actionable(1));
    EXPECT_TRUE(rule.actionable(19));
    EXPECT_FALSE(rule.actionable(20));
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
