// The rule's loop policy in the fixer, on the loops fixture tree (tests/fixtures/loops): each
// iopoll shape rewritten into the tree's helper (byte for byte against *.expected.c), the loops
// that do not fit kept with their budget stated or left with the figures, and the policy switch.
#include "core/file_io.h"
#include "core/rule.h"
#include "rewrite/fixer.h"
#include "rewrite/scanner.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>

namespace ksweep {
namespace {

std::string loops_tree() {
    return std::string(KSWEEP_FIXTURES) + "/loops";
}

std::string expected(const std::string& name) {
    const auto text = read_file(loops_tree() + "/expected/" + name);
    if (!text)
        throw std::runtime_error("no expected file " + name);
    return *text;
}

// KSWEEP_FIX_DUMP=DIR writes what the fixer produced, to review a changed expectation by eye.
void dump(const std::string& name, const std::string& text) {
    if (const char* dir = std::getenv("KSWEEP_FIX_DUMP"))
        std::ofstream(std::string(dir) + "/" + name) << text;
}

FixResult fix_with(LoopPolicy count, LoopPolicy fallback, const std::string& file,
                   IopollTimeout timeout = IopollTimeout::Longest) {
    std::vector<Rule> rules = load_rules({"msleep_small"});
    rules.front().loops = {count, fallback, timeout};
    ScanOptions options;
    options.tree = loops_tree();
    options.paths = {file};
    options.jobs = 1;
    const ScanResult scan = scan_tree(rules, options);
    return plan_fixes(rules, options, scan);
}

const SiteOutcome* site_in(const FixResult& r, const std::string& function) {
    for (const FileFix& f : r.files)
        for (const SiteOutcome& s : f.sites)
            if (s.finding.function == function)
                return &s;
    for (const SiteOutcome& s : r.skipped)
        if (s.finding.function == function)
            return &s;
    return nullptr;
}

TEST(FixLoops, IopollRewritesEveryLoopThatFitsAndKeepsTheOthersWithTheirBudget) {
    const FixResult r = fix_with(LoopPolicy::Iopoll, LoopPolicy::Keep, "drivers/loops/poll.c");
    ASSERT_EQ(r.files.size(), 1u);
    dump("poll.iopoll.c", r.files.front().fixed);
    EXPECT_EQ(r.files.front().fixed, expected("poll.iopoll.c"));
    EXPECT_TRUE(r.skipped.empty());

    const SiteOutcome* drdy = site_in(r, "poll_await_drdy");
    ASSERT_NE(drdy, nullptr);
    EXPECT_EQ(drdy->loop.policy, "iopoll");
    EXPECT_EQ(drdy->loop.helper, "read_poll_timeout");
    EXPECT_EQ(drdy->loop.sleep_us, 3000);
    // Two tries of msleep(3), each up to 3 jiffies at HZ=100: 60 ms, the longest today.
    EXPECT_EQ(drdy->loop.timeout_us, 60000);
    EXPECT_EQ(drdy->loop.timeout_why, "the longest the loop waits today, at HZ=100");
    // What it sleeps between reads, as the tree's iopoll.h runs it.
    EXPECT_EQ(drdy->loop.poll_sleep.rfind("usleep_range(751, 3000) (include/linux/iopoll.h:", 0),
              0u)
        << drdy->loop.poll_sleep;
    // Never sooner than today: the timeout and one more sleep, at every HZ.
    ASSERT_EQ(drdy->loop.after_ms_by_hz.size(), 3u);
    for (const auto& [hz, ms] : drdy->loop.after_ms_by_hz)
        EXPECT_GE(ms, drdy->finding.loop.budget_ms(hz)) << "HZ=" << hz;

    EXPECT_EQ(site_in(r, "poll_regmap_first")->loop.helper, "regmap_read_poll_timeout");
    EXPECT_EQ(site_in(r, "poll_readl_break")->loop.helper, "readl_poll_timeout");
    EXPECT_EQ(site_in(r, "poll_smbus")->loop.helper, "read_poll_timeout");
    EXPECT_EQ(site_in(r, "poll_value_after")->loop.helper, "read_poll_timeout");
    // Tests that read the device themselves: a new variable of the read's type (readl()'s u32;
    // inw()'s unsigned short spelled u16), named by a name the function does not use.
    EXPECT_EQ(site_in(r, "poll_read_in_test")->loop.helper, "readl_poll_timeout");
    EXPECT_EQ(site_in(r, "poll_port_in_test")->loop.helper, "readx_poll_timeout");

    // The four that do not fit: kept, with why and the budget after.
    for (const char* kept :
         {"poll_counted", "poll_through_pointer", "poll_two_reads", "poll_macro_test"}) {
        const SiteOutcome* s = site_in(r, kept);
        ASSERT_NE(s, nullptr) << kept;
        EXPECT_TRUE(s->fixed) << kept;
        EXPECT_EQ(s->loop.policy, "keep") << kept;
        EXPECT_EQ(s->loop.why.rfind("read_poll_timeout() does not fit: ", 0), 0u) << s->loop.why;
        ASSERT_EQ(s->loop.after_ms_by_hz.size(), 3u) << kept;
    }
    // 20 tries of msleep(4): 20 x 30 ms at HZ=100 before, 20 x usleep_range(4000, 5000) after
    // (the file's slack: 25 % of its shortest converted sleep, 4 ms).
    const SiteOutcome* counted = site_in(r, "poll_counted");
    EXPECT_EQ(counted->finding.loop.budget_ms(100), 600);
    EXPECT_EQ(counted->loop.after_ms_by_hz.front(), std::make_pair(100, 100.0));
}

TEST(FixLoops, KeepRewritesTheSleepsAndStatesEachBudget) {
    const FixResult r = fix_with(LoopPolicy::Keep, LoopPolicy::Keep, "drivers/loops/poll.c");
    ASSERT_EQ(r.files.size(), 1u);
    dump("poll.keep.c", r.files.front().fixed);
    EXPECT_EQ(r.files.front().fixed, expected("poll.keep.c"));
    for (const SiteOutcome& s : r.files.front().sites) {
        EXPECT_EQ(s.loop.policy, "keep") << s.finding.function;
        EXPECT_EQ(s.loop.after_ms_by_hz.size(), 3u) << s.finding.function;
        EXPECT_LT(s.loop.after_ms_by_hz.front().second, s.finding.loop.budget_ms(100))
            << s.finding.function;
    }
}

TEST(FixLoops, LeaveLeavesEverySiteWithTheFiguresAsItsReason) {
    const FixResult r = fix_with(LoopPolicy::Leave, LoopPolicy::Leave, "drivers/loops/poll.c");
    EXPECT_TRUE(r.files.empty());
    const SiteOutcome* drdy = site_in(r, "poll_await_drdy");
    ASSERT_NE(drdy, nullptr);
    EXPECT_FALSE(drdy->fixed);
    EXPECT_EQ(drdy->reason,
              "its loop gives up after 2 tries: the budget would fall from 24 ms -> 7.5 ms at "
              "HZ=250 (HZ=100: 60 -> 7.5, HZ=1000: 10 -> 7.5) (the rule's loop policy: leave)");
}

TEST(FixLoops, IopollThatCannotFallsBackToLeaveWhenTheRuleSaysSo) {
    const FixResult r = fix_with(LoopPolicy::Iopoll, LoopPolicy::Leave, "drivers/loops/poll.c");
    ASSERT_EQ(r.files.size(), 1u);
    const SiteOutcome* pointer = site_in(r, "poll_through_pointer");
    ASSERT_NE(pointer, nullptr);
    EXPECT_FALSE(pointer->fixed);
    EXPECT_EQ(pointer->loop.policy, "leave");
    EXPECT_NE(pointer->reason.find("its loop gives up after 5 tries: the budget would fall from "),
              std::string::npos)
        << pointer->reason;
    EXPECT_NE(pointer->reason.find("poll_fill() fills &data and returns a status"),
              std::string::npos)
        << pointer->reason;
}

TEST(FixLoops, TheNominalTimeoutIsTheTriesTimesTheSleepAsWritten) {
    const FixResult r = fix_with(LoopPolicy::Iopoll, LoopPolicy::Keep, "drivers/loops/poll.c",
                                 IopollTimeout::Nominal);
    const SiteOutcome* drdy = site_in(r, "poll_await_drdy");
    ASSERT_NE(drdy, nullptr);
    EXPECT_EQ(drdy->loop.timeout_us, 6000);
    EXPECT_NE(drdy->replacement.find("2 * POLL_MEASTIME * USEC_PER_MSEC"), std::string::npos)
        << drdy->replacement;
}

TEST(FixLoops, SitesOutsideCountedLoopsAreFixedAsBefore) {
    const FixResult r = fix_with(LoopPolicy::Leave, LoopPolicy::Leave, "drivers/loops/shapes.c");
    // Time-ended, condition-only and loop-free sites keep no policy; the counted ones are left.
    for (const char* free : {"shapes_jiffies", "shapes_ktime", "shapes_condition", "shapes_none"}) {
        const SiteOutcome* s = site_in(r, free);
        ASSERT_NE(s, nullptr) << free;
        EXPECT_TRUE(s->fixed) << free;
        EXPECT_EQ(s->loop.policy, "") << free;
    }
    const SiteOutcome* caller = site_in(r, "shapes_caller_count");
    ASSERT_NE(caller, nullptr);
    EXPECT_FALSE(caller->fixed);
    EXPECT_EQ(caller->reason.rfind("its loop gives up after a count ksweep cannot read (tries)", 0),
              0u)
        << caller->reason;
}

} // namespace
} // namespace ksweep
