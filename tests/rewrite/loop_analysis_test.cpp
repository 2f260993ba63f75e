// The loop analysis on the AST (rewrite/loop_analysis.h), through the scanner, on small C files
// written for it (tests/fixtures/loops): what ends each loop, how many times it sleeps, what it
// waits for, its budget at HZ 100/250/1000, and which loops have the iopoll shape.
#include "core/rule.h"
#include "rewrite/scanner.h"

#include <gtest/gtest.h>
#include <string>

namespace ksweep {
namespace {

std::string loops_tree() {
    return std::string(KSWEEP_FIXTURES) + "/loops";
}

ScanResult scan_loops(const std::vector<std::string>& rules, const std::string& file,
                      bool semantic = true) {
    ScanOptions options;
    options.tree = loops_tree();
    options.paths = {file};
    options.semantic = semantic;
    options.jobs = 1;
    return scan_tree(load_rules(rules), options);
}

// The one finding in `function`.
const Finding& in_function(const ScanResult& r, const std::string& function) {
    const Finding* found = nullptr;
    for (const Finding& f : r.findings)
        if (f.function == function) {
            if (found)
                throw std::runtime_error("two findings in " + function);
            found = &f;
        }
    if (!found)
        throw std::runtime_error("no finding in " + function);
    return *found;
}

class LoopShapes : public ::testing::Test {
  protected:
    // An exception here would make gtest skip the tests (and ctest count them passed): it is
    // kept, and every test fails with it.
    static void SetUpTestSuite() {
        try {
            scan = new ScanResult(
                scan_loops({"msleep_small", "short_jiffy_sleeps"}, "drivers/loops/shapes.c"));
        } catch (const std::exception& e) {
            setup_error = e.what();
        }
    }
    void SetUp() override { ASSERT_NE(scan, nullptr) << setup_error; }
    static void TearDownTestSuite() {
        delete scan;
        scan = nullptr;
    }
    static const LoopInfo& loop(const std::string& function) {
        return in_function(*scan, function).loop;
    }
    static ScanResult* scan;
    static inline std::string setup_error;
};
ScanResult* LoopShapes::scan = nullptr;

TEST_F(LoopShapes, TheFileParses) {
    EXPECT_TRUE(scan->errors.empty()) << scan->errors.front();
    EXPECT_EQ(scan->files_semantic, 1u);
}

TEST_F(LoopShapes, ForCountingUpToANamedBound) {
    const LoopInfo& l = loop("shapes_for_up");
    EXPECT_EQ(l.ends_by, LoopEnd::Count);
    EXPECT_EQ(l.statement, "for");
    EXPECT_EQ(l.counter, "i");
    ASSERT_TRUE(l.tries);
    EXPECT_EQ(*l.tries, 10);
    EXPECT_EQ(l.tries_text, "SHAPES_TRIES"); // the count as the source names it
    ASSERT_TRUE(l.waits_for);
    EXPECT_EQ(l.waits_for->reader, "readl");
    EXPECT_EQ(l.waits_for->condition, "readl(base + SHAPES_STATUS) & SHAPES_READY");
    // msleep(2) at HZ=250 on a 6.1-shaped tree: 1 jiffy, the extra one, then the wheel's next
    // bucket: 12 ms; ten tries.
    ASSERT_EQ(l.budget_ms_by_hz.size(), 3u);
    EXPECT_EQ(l.budget_ms(100), 300);
    EXPECT_EQ(l.budget_ms(250), 120);
    EXPECT_EQ(l.budget_ms(1000), 40);
}

TEST_F(LoopShapes, DoWhilePreDecrementWaitsForTheValueRegmapReadFills) {
    const LoopInfo& l = loop("shapes_do_predec");
    EXPECT_EQ(l.ends_by, LoopEnd::Count);
    EXPECT_EQ(l.statement, "do");
    ASSERT_TRUE(l.tries);
    EXPECT_EQ(*l.tries, 2);
    ASSERT_TRUE(l.waits_for);
    // The value that comes back through &val beats the status returned beside it.
    EXPECT_EQ(l.waits_for->reader, "regmap_read");
    EXPECT_EQ(l.waits_for->value, "val");
    EXPECT_EQ(l.waits_for->condition, "val & SHAPES_READY");
    EXPECT_TRUE(l.iopoll.has_value()) << l.not_iopoll;
}

TEST_F(LoopShapes, PostAndPreDecrementsCountAsCDoes) {
    // while (retries--) from 3: three passes; do ... while (retries--) from 3: four;
    // while (--n) from 5: four.
    EXPECT_EQ(loop("shapes_while_postdec").tries, 3);
    EXPECT_EQ(loop("shapes_do_postdec").tries, 4);
    EXPECT_EQ(loop("shapes_while_predec").tries, 4);
    ASSERT_TRUE(loop("shapes_while_postdec").waits_for);
    EXPECT_EQ(loop("shapes_while_postdec").waits_for->reader, "i2c_smbus_read_byte_data");
    EXPECT_EQ(loop("shapes_while_postdec").waits_for->condition, "val == 0x5a");
    ASSERT_TRUE(loop("shapes_while_predec").waits_for);
    EXPECT_EQ(loop("shapes_while_predec").waits_for->reader, "inb");
}

TEST_F(LoopShapes, JiffiesAndKtimeEndByTime) {
    EXPECT_EQ(loop("shapes_jiffies").ends_by, LoopEnd::Time);
    EXPECT_EQ(loop("shapes_ktime").ends_by, LoopEnd::Time);
    EXPECT_FALSE(loop("shapes_jiffies").tries);
    EXPECT_TRUE(loop("shapes_jiffies").budget_ms_by_hz.empty());
    ASSERT_TRUE(loop("shapes_ktime").waits_for);
    EXPECT_EQ(loop("shapes_ktime").waits_for->condition, "readl(base) & SHAPES_READY");
}

TEST_F(LoopShapes, OnlyAConditionOrNoLoop) {
    const LoopInfo& c = loop("shapes_condition");
    EXPECT_EQ(c.ends_by, LoopEnd::Condition);
    ASSERT_TRUE(c.waits_for);
    EXPECT_EQ(c.waits_for->reader, "readl");
    EXPECT_EQ(loop("shapes_none").ends_by, LoopEnd::None);
}

TEST_F(LoopShapes, ACountTheCallerGivesIsNamedNotGuessed) {
    const LoopInfo& l = loop("shapes_caller_count");
    EXPECT_EQ(l.ends_by, LoopEnd::Count);
    EXPECT_FALSE(l.tries);
    EXPECT_EQ(l.tries_text, "tries");
    EXPECT_TRUE(l.budget_ms_by_hz.empty());
    EXPECT_NE(l.not_iopoll.find("the caller gives the count"), std::string::npos) << l.not_iopoll;
}

TEST_F(LoopShapes, TheSecondRulesSleepsGetTheSameAnalysis) {
    const Finding& f = in_function(*scan, "shapes_jiffy_sleep");
    EXPECT_EQ(f.rule, "short_jiffy_sleeps");
    EXPECT_EQ(f.loop.ends_by, LoopEnd::Count);
    EXPECT_EQ(f.loop.tries, 4);
    // schedule_timeout_uninterruptible(msecs_to_jiffies(2)) at HZ=250: 1 jiffy + the wheel's.
    EXPECT_EQ(f.loop.budget_ms(250), 32);
}

TEST(LoopAnalysis, WithoutTheSemanticEngineEveryLoopIsUnknownAndSaysWhy) {
    const ScanResult r = scan_loops({"msleep_small"}, "drivers/loops/shapes.c", false);
    ASSERT_FALSE(r.findings.empty());
    for (const Finding& f : r.findings) {
        EXPECT_EQ(f.loop.ends_by, LoopEnd::Unknown);
        EXPECT_NE(f.loop.note.find("--lexical-only"), std::string::npos) << f.loop.note;
    }
}

TEST(LoopAnalysis, WhatStopsTheIopollShapeIsSaid) {
    const ScanResult r = scan_loops({"msleep_small"}, "drivers/loops/poll.c");
    for (const char* fits :
         {"poll_await_drdy", "poll_regmap_first", "poll_readl_break", "poll_smbus",
          "poll_value_after", "poll_read_in_test", "poll_port_in_test"}) {
        const LoopInfo& l = in_function(r, fits).loop;
        EXPECT_TRUE(l.iopoll.has_value()) << fits << ": " << l.not_iopoll;
    }
    const LoopInfo& counted = in_function(r, "poll_counted").loop;
    EXPECT_FALSE(counted.iopoll);
    EXPECT_NE(counted.not_iopoll.find("does more than read, test and sleep"), std::string::npos)
        << counted.not_iopoll;
    EXPECT_NE(counted.not_iopoll.find("dev->polls++"), std::string::npos) << counted.not_iopoll;
    // A test that reads the device itself: into a new variable, declared where C allows.
    const IopollShape& in_test = *in_function(r, "poll_read_in_test").loop.iopoll;
    EXPECT_EQ(in_test.condition, "val & POLL_DRDY");
    EXPECT_EQ(in_test.declaration, "u32 val;");
    EXPECT_FALSE(in_test.declaration_alone);
    const IopollShape& port = *in_function(r, "poll_port_in_test").loop.iopoll;
    EXPECT_EQ(port.declaration, "u16 value;") << "val is the function's parameter";
    EXPECT_TRUE(port.declaration_alone);
    EXPECT_EQ(in_function(r, "poll_macro_test").loop.not_iopoll,
              "its read calls POLL_READY(dev), not a function by name");
    EXPECT_EQ(in_function(r, "poll_two_reads").loop.not_iopoll,
              "its test inb(port) & inb(port + 1) calls more than one function: "
              "read_poll_timeout() reads one value");
    const LoopInfo& pointer = in_function(r, "poll_through_pointer").loop;
    EXPECT_FALSE(pointer.iopoll);
    EXPECT_EQ(pointer.not_iopoll, "poll_fill() fills &data and returns a status: "
                                  "read_poll_timeout() needs an op that returns the value it "
                                  "reads");
}

} // namespace
} // namespace ksweep
