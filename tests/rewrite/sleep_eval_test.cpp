// The tree's sleep functions evaluated (rewrite/sleep_eval.h) on small trees written here:
// fsleep() in each of its shapes, whatever its slack is called, per HZ and per branch; the
// sleep between two tries of read_poll_timeout(); a subsystem's helper; and what target auto
// makes of each.
#include "core/file_io.h"
#include "rewrite/sleep_eval.h"
#include "test_files.h"

#include <gtest/gtest.h>

namespace ksweep {
namespace {

using kbuild::FsleepKind;
using test::write_file;

// What every tree below has: HZ and the sleeps fsleep() reaches, with the kernel's signatures.
const char* kTimeBase = "#ifndef CONFIG_HZ\n#define CONFIG_HZ 250\n#endif\n"
                        "#define HZ CONFIG_HZ\n"
                        "#define TICK_NSEC ((1000000000L + HZ / 2) / HZ)\n"
                        "#define USEC_PER_MSEC 1000L\n#define NSEC_PER_USEC 1000L\n"
                        "void msleep(unsigned int msecs);\n"
                        "void usleep_range(unsigned long min, unsigned long max);\n"
                        "void __udelay(unsigned long usecs);\n";

// A tree whose delay.h defines fsleep() with `body` (after kTimeBase).
class FsleepTree {
  public:
    explicit FsleepTree(const std::string& body) {
        write_file(dir.path() / "Makefile", "VERSION = 6\nPATCHLEVEL = 13\nSUBLEVEL = 0\n");
        write_file(dir.path() / "include/linux/delay.h", std::string(kTimeBase) + body);
    }
    std::string path() const { return dir.path().string(); }
    TempDir dir{"sleep-eval"};
};

std::string step_of(TreeSleeps& t, long long us, int hz) {
    const SleepEval e = t.fsleep(us, hz);
    return e.step ? e.step->text() : "none: " + e.note;
}

// v6.13's shape, its slack shift a `static const` as upstream names it, not a literal.
const char* kQuarter =
    "static const unsigned int max_slack_shift = 2;\n"
    "#define USLEEP_RANGE_UPPER_BOUND ((TICK_NSEC << max_slack_shift) / NSEC_PER_USEC)\n"
    "static inline void fsleep(unsigned long usecs)\n{\n"
    "\tif (usecs <= 10)\n\t\t__udelay(usecs);\n"
    "\telse if (usecs < USLEEP_RANGE_UPPER_BOUND)\n"
    "\t\tusleep_range(usecs, usecs + (usecs >> max_slack_shift));\n"
    "\telse\n\t\tmsleep((usecs + USEC_PER_MSEC - 1) / USEC_PER_MSEC);\n}\n";

TEST(SleepEval, TheV613FsleepTakesItsBranchByHz) {
    FsleepTree tree(kQuarter);
    TreeSleeps sleeps(tree.path(), "");
    // Four ticks: 40 ms at HZ=100, 16 ms at HZ=250, 4 ms at HZ=1000.
    EXPECT_EQ(step_of(sleeps, 5000, 100), "usleep_range(5000, 6250)");
    EXPECT_EQ(step_of(sleeps, 5000, 250), "usleep_range(5000, 6250)");
    EXPECT_EQ(step_of(sleeps, 5000, 1000), "msleep(5)");
    EXPECT_EQ(step_of(sleeps, 20000, 100), "usleep_range(20000, 25000)");
    EXPECT_EQ(step_of(sleeps, 20000, 250), "msleep(20)");
    EXPECT_EQ(step_of(sleeps, 15999, 250), "usleep_range(15999, 19998)");
    EXPECT_EQ(step_of(sleeps, 16000, 250), "msleep(16)");
    // The longest each sleeps: the range's maximum; msleep(5) at HZ=1000 with no extra jiffy
    // (a 6.13 tree) is 5 jiffies and the wheel's next one.
    const SleepEval at1000 = sleeps.fsleep(5000, 1000);
    ASSERT_TRUE(at1000.step);
    EXPECT_EQ(at1000.step->max_ms(1000, false), 6);
    EXPECT_EQ(sleeps.fsleep(5000, 250).step->max_ms(250, false), 6.25);
    EXPECT_EQ(sleeps.fsleep(5000, 250).step->at, "include/linux/delay.h:18");

    const FsleepRead read = sleeps.read_fsleep();
    EXPECT_EQ(read.kind, FsleepKind::QuarterSlack) << read.note;
    EXPECT_EQ(read.source, "include/linux/delay.h:18");
}

TEST(SleepEval, TheSameWrittenWithALiteralShiftReadsTheSame) {
    FsleepTree tree("static inline void fsleep(unsigned long us)\n{\n"
                    "\tif (us < ((TICK_NSEC << 2) / NSEC_PER_USEC))\n"
                    "\t\tusleep_range(us, us + (us >> 2));\n"
                    "\telse\n\t\tmsleep((us + 999) / 1000);\n}\n");
    TreeSleeps sleeps(tree.path(), "");
    EXPECT_EQ(step_of(sleeps, 5000, 250), "usleep_range(5000, 6250)");
    EXPECT_EQ(sleeps.read_fsleep().kind, FsleepKind::QuarterSlack);
}

TEST(SleepEval, TheV58FsleepAllowsTwiceTheSleep) {
    FsleepTree tree("static inline void fsleep(unsigned long usecs)\n{\n"
                    "\tif (usecs <= 10)\n\t\t__udelay(usecs);\n"
                    "\telse if (usecs <= 20000)\n\t\tusleep_range(usecs, 2 * usecs);\n"
                    "\telse\n\t\tmsleep((usecs + 999) / 1000);\n}\n");
    TreeSleeps sleeps(tree.path(), "");
    EXPECT_EQ(step_of(sleeps, 5000, 1000), "usleep_range(5000, 10000)");
    const FsleepRead read = sleeps.read_fsleep();
    EXPECT_EQ(read.kind, FsleepKind::DoubleRange);
    EXPECT_EQ(read.source, "include/linux/delay.h:16");
}

TEST(SleepEval, NoFsleepIsAbsentAndAnOddSlackIsUnknownWithItsFigures) {
    FsleepTree none("/* fsleep: not yet */\n");
    TreeSleeps absent(none.path(), "");
    EXPECT_EQ(absent.read_fsleep().kind, FsleepKind::Absent);
    EXPECT_FALSE(absent.fsleep(5000, 250).defined);

    FsleepTree odd("static inline void fsleep(unsigned long usecs)\n{\n"
                   "\tusleep_range(usecs, usecs * 3 / 2);\n}\n");
    TreeSleeps half(odd.path(), "");
    const FsleepRead read = half.read_fsleep();
    EXPECT_EQ(read.kind, FsleepKind::Unknown);
    EXPECT_EQ(read.note, "fsleep(20) at HZ=100 is usleep_range(20, 30) (include/linux/delay.h:13), "
                         "neither twice the sleep nor a quarter more at most");
}

TEST(SleepEval, TheSleepBetweenTwoPollsAsTheTreesIopollRunsIt) {
    TreeSleeps sleeps(std::string(KSWEEP_FIXTURES) + "/loops", "");
    const SleepEval e = sleeps.iopoll_sleep(3000, 250);
    ASSERT_TRUE(e.step) << e.note;
    EXPECT_EQ(e.step->text(), "usleep_range(751, 3000)");
    EXPECT_TRUE(sleeps.defines("include/linux/iopoll.h", "readl_poll_timeout"));
    EXPECT_FALSE(sleeps.defines("include/linux/iopoll.h", "readq_poll_timeout"));
}

TEST(SleepEval, ASubsystemsHelperThroughItsOwnHeader) {
    FsleepTree tree(kQuarter);
    write_file(tree.dir.path() / "drivers/fix/fix.h",
               "#include <linux/delay.h>\n#define FIX_RANGE_US 300\n"
               "static inline void fix_msleep(unsigned int ms)\n{\n"
               "\tusleep_range(ms * 1000, ms * 1000 + FIX_RANGE_US);\n}\n");
    TreeSleeps sleeps(tree.path(), "");
    const SleepEval e = sleeps.helper("drivers/fix/fix.h", "fix_msleep", 5, 250);
    ASSERT_TRUE(e.step) << e.note;
    EXPECT_EQ(e.step->text(), "usleep_range(5000, 5300)");
    EXPECT_EQ(e.step->at, "drivers/fix/fix.h:5");
}

TEST(SleepEval, ATreeWhoseHeadersDoNotParseSaysSo) {
    FsleepTree tree("static inline void fsleep(unsigned long usecs) { this does not parse }\n");
    TreeSleeps sleeps(tree.path(), "");
    const FsleepRead read = sleeps.read_fsleep();
    EXPECT_EQ(read.kind, FsleepKind::Unknown);
    EXPECT_NE(read.note.find("did not parse"), std::string::npos) << read.note;
}

// The gate runs once per patch: the evaluations are kept between runs, keyed by what the parse
// was given and trusted only while every header it read is unchanged.
TEST(SleepEval, EvaluationsAreKeptBetweenRunsUntilAHeaderChanges) {
    FsleepTree tree(kQuarter);
    TempDir memo("sleep-eval-memo");
    {
        TreeSleeps first(tree.path(), "", memo.path().string());
        EXPECT_EQ(first.read_fsleep().kind, FsleepKind::QuarterSlack);
        EXPECT_EQ(first.parses_made(), 3); // one per HZ
    }
    {
        TreeSleeps second(tree.path(), "", memo.path().string());
        const FsleepRead read = second.read_fsleep();
        EXPECT_EQ(read.kind, FsleepKind::QuarterSlack);
        EXPECT_EQ(read.source, "include/linux/delay.h:18");
        EXPECT_EQ(second.fsleep(5000, 1000).step->text(), "msleep(5)");
        EXPECT_EQ(second.parses_made(), 0);
        // A call not asked before parses, once.
        EXPECT_EQ(step_of(second, 7000, 250), "usleep_range(7000, 8750)");
        EXPECT_EQ(second.parses_made(), 1);
    }
    // delay.h now allows twice the sleep: the kept answers are not used.
    write_file(tree.dir.path() / "include/linux/delay.h",
               std::string(kTimeBase) + "static inline void fsleep(unsigned long usecs)\n{\n"
                                        "\tusleep_range(usecs, 2 * usecs);\n}\n");
    TreeSleeps third(tree.path(), "", memo.path().string());
    EXPECT_EQ(third.read_fsleep().kind, FsleepKind::DoubleRange);
    EXPECT_EQ(third.parses_made(), 3);
}

// A parse that failed keeps nothing: the next run tries again and says why again.
TEST(SleepEval, AFailedParseIsNotKept) {
    FsleepTree tree("static inline void fsleep(unsigned long usecs) { this does not parse }\n");
    TempDir memo("sleep-eval-memo");
    for (int run = 0; run < 2; ++run) {
        TreeSleeps sleeps(tree.path(), "", memo.path().string());
        EXPECT_NE(sleeps.read_fsleep().note.find("did not parse"), std::string::npos);
        EXPECT_EQ(sleeps.parses_made(), 1) << "run " << run;
    }
}

} // namespace
} // namespace ksweep
