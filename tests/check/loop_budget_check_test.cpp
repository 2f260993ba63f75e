// `check` on a hand-made conversion inside a loop that gives up after a number of tries: the
// msleep() becomes a shorter usleep_range() and the loop's budget, the driver's timeout,
// shrinks. The gate says so with the budgets at HZ 100, 250 and 1000 and what fix would write;
// the same change in a loop that ends by a time is no such warning.
#include "check/report_format.h"
#include "check_test_support.h"
#include "json_fields.h"

#include <gtest/gtest.h>

namespace ksweep::check {
namespace {

const std::string kLoopsTree = std::string(KSWEEP_FIXTURES) + "/loops";

InputReport check_patch(const std::string& patch) {
    static const std::vector<Rule> rules = load_rules({"msleep_small"});
    PatchChecker checker(rules.front(), CheckOptions{kLoopsTree, "", true, 250});
    Overlay overlay;
    CheckInput input{"p", "p", patch, tree_reader(kLoopsTree)};
    return checker.check(input, overlay);
}

// poll_await_drdy()'s do-while of 2 tries (drivers/loops/poll.c:29), by hand.
const char* const kCountLoop =
    "--- a/drivers/loops/poll.c\n"
    "+++ b/drivers/loops/poll.c\n"
    "@@ -26,7 +26,7 @@ static int poll_await_drdy(struct poll_dev *dev)\n"
    " \tint ret;\n"
    " \n"
    " \tdo {\n"
    "-\t\tmsleep(POLL_MEASTIME);\n"
    "+\t\tusleep_range(3000, 3500);\n"
    " \t\tret = regmap_read(dev->map, POLL_STATUS, &val);\n"
    " \t\tif (ret < 0)\n"
    " \t\t\treturn ret;\n";

// shapes_jiffies()'s loop ends by a time (drivers/loops/shapes.c:94).
const char* const kTimeLoop = "--- a/drivers/loops/shapes.c\n"
                              "+++ b/drivers/loops/shapes.c\n"
                              "@@ -91,7 +91,7 @@ static int shapes_jiffies(const void *addr)\n"
                              " \twhile (time_before(jiffies, end)) {\n"
                              " \t\tif (ioread32(addr) & SHAPES_READY)\n"
                              " \t\t\treturn 0;\n"
                              "-\t\tmsleep(1);\n"
                              "+\t\tusleep_range(1000, 1250);\n"
                              " \t}\n"
                              " \treturn -5;\n"
                              " }\n";

TEST(LoopBudgetCheck, AShorterSleepInACountedLoopIsAWarningWithTheBudgets) {
    const InputReport r = check_patch(kCountLoop);
    ASSERT_EQ(r.warnings.size(), 1u);
    const Warning& w = r.warnings.front();
    EXPECT_EQ(w.type, "MSLEEP_LOOP_BUDGET");
    EXPECT_EQ(w.finding.line, 29u);
    EXPECT_EQ(w.input_line, 8u);
    // Two tries of msleep(3) on a 6.1 tree: 60, 24 and 10 ms; of usleep_range(3000, 3500): 7.
    EXPECT_EQ(w.message,
              "msleep(POLL_MEASTIME) became usleep_range(3000, 3500) in poll_await_drdy()'s do "
              "loop, which gives up after 2 tries: its budget falls from 24 ms -> 7 ms at HZ=250 "
              "(HZ=100: 60 -> 7, HZ=1000: 10 -> 7); ksweep fix writes read_poll_timeout("
              "regmap_read, ret, ret || (val & POLL_DRDY), POLL_MEASTIME * USEC_PER_MSEC, 60000, "
              "true, dev->map, POLL_STATUS, &val) for this loop, which keeps it");
    TextStyle style;
    style.terse = true;
    style.show_types = true;
    style.showfile = true;
    style.summary = false;
    EXPECT_NE(format_text({r}, load_rules({"msleep_small"}), style)
                  .find("drivers/loops/poll.c:29: WARNING:MSLEEP_LOOP_BUDGET: "),
              std::string::npos);
}

// poll_regmap_first()'s for loop of 5 tries (drivers/loops/poll.c:53): a shorter msleep().
const char* const kShorterMsleep =
    "--- a/drivers/loops/poll.c\n"
    "+++ b/drivers/loops/poll.c\n"
    "@@ -50,7 +50,7 @@ static int poll_regmap_first(struct poll_dev *dev)\n"
    " \t\t\treturn ret;\n"
    " \t\tif (!(val & POLL_DRDY))\n"
    " \t\t\treturn 0;\n"
    "-\t\tmsleep(10);\n"
    "+\t\tmsleep(5);\n"
    " \t}\n"
    " \treturn -EIO;\n"
    " }\n";

// check's JSON carries each warning's loop as scan's JSON does (docs/scan-json.md, "loop").
TEST(LoopBudgetCheck, TheJsonOfEachWarningCarriesItsLoop) {
    const std::vector<Rule> rules = load_rules({"msleep_small"});
    const Json budget =
        test::parse_json(format_json({check_patch(kCountLoop)}, rules, {"0", kLoopsTree, 250, {}}));
    const Json& w = budget.at("inputs").front().at("warnings").front();
    EXPECT_EQ(test::json_string(w, "type", ""), "MSLEEP_LOOP_BUDGET");
    const Json& loop = w.at("loop");
    EXPECT_EQ(test::json_string(loop, "ends_by", ""), "count");
    EXPECT_EQ(test::json_string(loop, "statement", ""), "do");
    EXPECT_EQ(test::json_integer(loop, "tries", -1), 2);
    EXPECT_EQ(test::json_string(loop, "counter", ""), "timeout");
    EXPECT_EQ(test::json_string(loop.at("waits_for"), "reader", ""), "regmap_read");
    EXPECT_TRUE(test::json_bool(loop, "iopoll_shape"));

    const Json added = test::parse_json(
        format_json({check_patch(kShorterMsleep)}, rules, {"0", kLoopsTree, 250, {}}));
    const Json& warnings = added.at("inputs").front().at("warnings");
    ASSERT_EQ(warnings.size(), 1u) << added.dump(1);
    const Json& small = warnings.front();
    EXPECT_EQ(test::json_string(small, "type", ""), "MSLEEP");
    EXPECT_EQ(test::json_string(small.at("loop"), "ends_by", ""), "count");
    EXPECT_EQ(test::json_string(small.at("loop"), "statement", ""), "for");
    EXPECT_EQ(test::json_integer(small.at("loop"), "tries", -1), 5);
    // Five tries of msleep(5) at HZ=250, each up to 16 ms (two jiffies, msleep's extra one and
    // the one it starts in): 80 ms.
    EXPECT_EQ(test::json_integer(small.at("loop").at("budget_ms_by_hz"), "250", -1), 80);
}

TEST(LoopBudgetCheck, ALoopThatEndsByATimeKeepsItsBudget) {
    const InputReport r = check_patch(kTimeLoop);
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front().message;
}

} // namespace
} // namespace ksweep::check
