// `check` with the second rule: a patch that adds a short jiffy sleep is a WARNING of the
// rule's own type, with what fix would write or why it would not, beside msleep_small's.
#include "check/report_format.h"
#include "check_test_support.h"

#include <gtest/gtest.h>

namespace ksweep::check {
namespace {

const std::string kScanTree = std::string(KSWEEP_FIXTURES) + "/scan";

InputReport check_new_file(const Rule& rule, const std::string& text) {
    PatchChecker checker(rule, CheckOptions{kScanTree, "", true, 250});
    Overlay overlay;
    CheckInput input{"p", "p", testing::new_file_patch("drivers/fixture/new.c", text),
                     tree_reader(kScanTree)};
    return checker.check(input, overlay);
}

const char* const kAdded = "#include <linux/delay.h>\n#include <linux/fixture_timeouts.h>\n"
                           "#include <linux/jiffies.h>\n#include <linux/sched.h>\n\n"
                           "static long new_wait(void)\n{\n"
                           "\tschedule_timeout_uninterruptible(msecs_to_jiffies(FIX_TIMEOUT));\n"
                           "\tmsleep(3);\n"
                           "\treturn schedule_timeout_killable(usecs_to_jiffies(HDR_POLL_US));\n"
                           "}\n";

TEST(ShortJiffyCheck, EachRuleReportsItsOwnTypeAndAdvice) {
    const std::vector<Rule> rules = load_rules({});
    std::vector<std::vector<InputReport>> per_rule;
    for (const Rule& rule : rules)
        per_rule.push_back({check_new_file(rule, kAdded)});
    const std::vector<InputReport> merged = merge_reports(std::move(per_rule));
    ASSERT_EQ(merged.size(), 1u);
    ASSERT_EQ(merged[0].warnings.size(), 3u);
    TextStyle style;
    style.terse = true;
    style.show_types = true;
    style.showfile = true;
    style.summary = false;
    const std::string text = format_text(merged, rules, style);
    EXPECT_NE(text.find("drivers/fixture/new.c:8: WARNING:SHORT_JIFFY_SLEEP: "
                        "schedule_timeout_uninterruptible(msecs_to_jiffies(FIX_TIMEOUT)) < 20ms "
                        "can sleep for up to 12ms at HZ=250: FIX_TIMEOUT is 5 (enumerator at "
                        "include/linux/fixture_timeouts.h:10); use usleep_range(FIX_TIMEOUT * "
                        "USEC_PER_MSEC, FIX_TIMEOUT * USEC_PER_MSEC + NEW_DELAY_RANGE)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("drivers/fixture/new.c:9: WARNING:MSLEEP: msleep(3) < 20ms"),
              std::string::npos)
        << text;
    // The time left is returned: fix leaves it, and the warning says why.
    EXPECT_NE(text.find("drivers/fixture/new.c:10: WARNING:SHORT_JIFFY_SLEEP: "
                        "schedule_timeout_killable(usecs_to_jiffies(HDR_POLL_US)) < 20ms"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("wakes on a signal and returns the time left"), std::string::npos) << text;
}

} // namespace
} // namespace ksweep::check
