// Every edit kind of the fixer: a fixture before, the exact text after (*.expected.c), the
// sites it left alone and why, and a second fix that changes nothing.
#include "fix_test_support.h"
#include "rewrite/fixer.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>

namespace ksweep {
namespace {

using testing::findings_in;
using testing::read_fixture;
using testing::Resolved;

// KSWEEP_FIX_DUMP=DIR writes what the fixer produced, to review a changed expectation by eye.
void dump(const std::string& name, const std::string& text) {
    if (const char* dir = std::getenv("KSWEEP_FIX_DUMP")) {
        std::ofstream(std::string(dir) + "/" + name) << text;
    }
}

struct Fixed {
    FileFix fix;
    std::vector<SiteOutcome> skipped;
};

Fixed fix_fixture(const Rule& rule, const std::string& fixture, const std::string& path,
                  const std::map<std::string, Resolved>& values = {}) {
    const std::string text = read_fixture(fixture);
    Fixed out;
    out.fix = fix_file_text(rule, path, text, findings_in(rule, path, text, values), out.skipped);
    return out;
}

// A second fix over the fixed text, with the values the macros have now, changes nothing.
void expect_idempotent(const Rule& rule, const FileFix& fix,
                       const std::map<std::string, Resolved>& values_after = {}) {
    std::vector<SiteOutcome> skipped;
    const FileFix again = fix_file_text(
        rule, fix.file, fix.fixed, findings_in(rule, fix.file, fix.fixed, values_after), skipped);
    EXPECT_EQ(again.fixed, fix.fixed);
    EXPECT_TRUE(again.sites.empty());
}

const SiteOutcome* skipped_call(const std::vector<SiteOutcome>& skipped, const std::string& call) {
    for (const SiteOutcome& s : skipped)
        if (s.finding.call == call)
            return &s;
    return nullptr;
}

TEST(FixEditKinds, LiteralsBecomeMicrosecondsWithANamedSlack) {
    const Rule rule = testing::shipped_rule();
    const Fixed r = fix_fixture(rule, "literal.c", "drivers/misc/foo.c");
    dump("literal.c", r.fix.fixed);
    EXPECT_EQ(r.fix.fixed, read_fixture("literal.expected.c"));
    // 25 % of the shortest converted sleep (2 ms), above the 50 µs floor.
    EXPECT_EQ(r.fix.slack_name, "FOO_DELAY_RANGE");
    EXPECT_EQ(r.fix.slack_us, 500);
    EXPECT_TRUE(r.fix.slack_defined_here);
    ASSERT_EQ(r.fix.sites.size(), 2u);
    EXPECT_EQ(r.fix.sites[0].how, "literal in usec");
    // What check quotes: the call as written, on one line.
    EXPECT_EQ(r.fix.sites[0].replacement, "usleep_range(5000, 5000 + FOO_DELAY_RANGE)");
    const SiteOutcome* zero = skipped_call(r.skipped, "msleep(0)");
    ASSERT_NE(zero, nullptr);
    EXPECT_NE(zero->reason.find("left alone"), std::string::npos);
    EXPECT_EQ(skipped_call(r.skipped, "msleep(20)"), nullptr); // not a small sleep at all
    expect_idempotent(rule, r.fix);
}

TEST(FixEditKinds, SameFileMacrosConvertWithEveryUse) {
    const Rule rule = testing::shipped_rule();
    const std::map<std::string, Resolved> values = {
        {"BAR_I2C_BUS_DELAY", {1, Resolution::Macro, ""}},
        {"BAR_I2C_RETRY_DELAY_SHORT", {2, Resolution::Macro, ""}},
        {"BAR_I2C_RETRY_DELAY_LONG", {10, Resolution::Macro, ""}},
    };
    const Fixed r = fix_fixture(rule, "macro_usec.c", "drivers/misc/bar.c", values);
    dump("macro_usec.c", r.fix.fixed);
    EXPECT_EQ(r.fix.fixed, read_fixture("macro_usec.expected.c"));
    EXPECT_EQ(r.fix.slack_name, "BAR_I2C_DELAY_RANGE");
    EXPECT_EQ(r.fix.slack_us, 250);
    EXPECT_EQ(r.fix.sites.size(), 3u);
    EXPECT_TRUE(r.skipped.empty());
    // Now in µs: a second scan sees values of 1000 and more, none of them small msleeps.
    expect_idempotent(rule, r.fix,
                      {{"BAR_I2C_BUS_DELAY", {1000, Resolution::Macro, ""}},
                       {"BAR_I2C_RETRY_DELAY_SHORT", {2000, Resolution::Macro, ""}},
                       {"BAR_I2C_RETRY_DELAY_LONG", {10000, Resolution::Macro, ""}}});
}

// A macro converted to microseconds says so even when it had no unit comment (docs/fix.md;
// upstream a233a0289cf9 wrote "(2 * 1000)	/* usec */"): a reader of the #define alone must
// not take 1000 for milliseconds.
TEST(FixEditKinds, AConvertedMacroWithoutAUnitCommentGetsOne) {
    const Rule rule = testing::shipped_rule();
    const std::map<std::string, Resolved> values = {
        {"QUUX_ACTIVATE_DELAY", {1, Resolution::Macro, ""}},
        {"QUUX_SELFTEST_DELAY", {2, Resolution::Macro, ""}},
        {"QUUX_POWERON_DELAY", {50, Resolution::Macro, ""}},
    };
    const Fixed r = fix_fixture(rule, "macro_usec_uncommented.c", "drivers/misc/quux.c", values);
    dump("macro_usec_uncommented.c", r.fix.fixed);
    EXPECT_EQ(r.fix.fixed, read_fixture("macro_usec_uncommented.expected.c"));
    EXPECT_EQ(r.fix.sites.size(), 2u);
    expect_idempotent(rule, r.fix,
                      {{"QUUX_ACTIVATE_DELAY", {1000, Resolution::Macro, ""}},
                       {"QUUX_SELFTEST_DELAY", {2000, Resolution::Macro, ""}},
                       {"QUUX_POWERON_DELAY", {50, Resolution::Macro, ""}}});
}

TEST(FixEditKinds, MacrosThatKeepTheirUnitScaleAtTheCallSite) {
    const Rule rule = testing::shipped_rule();
    const std::map<std::string, Resolved> values = {
        {"BAZ_RESET_DELAY_MS", {5, Resolution::Macro, ""}},
        {"BAZ_POWER_DELAY", {3, Resolution::Macro, ""}},
        {"BAZ_POLL_DELAY", {4, Resolution::Macro, ""}},
    };
    const Fixed r = fix_fixture(rule, "macro_scaled.c", "drivers/misc/baz.c", values);
    dump("macro_scaled.c", r.fix.fixed);
    EXPECT_EQ(r.fix.fixed, read_fixture("macro_scaled.expected.c"));
    EXPECT_EQ(r.fix.slack_us, 750);
    ASSERT_EQ(r.fix.sites.size(), 3u);
    for (const SiteOutcome& s : r.fix.sites)
        EXPECT_EQ(s.how.rfind("scaled at the call site", 0), 0u) << s.how;
    expect_idempotent(rule, r.fix, values);
}

TEST(FixEditKinds, HeaderAndEnumConstantsScaleAndTheHeaderStaysAlone) {
    const Rule rule = testing::shipped_rule();
    const std::map<std::string, Resolved> values = {
        {"QUX_TIMEOUT", {5, Resolution::Enum, "drivers/misc/qux.h:9"}},
        {"QUX_HDR_DELAY", {2, Resolution::Macro, "drivers/misc/qux.h:6"}},
        {"QUX_HDR_DELAY + 1", {3, Resolution::Expression, ""}},
    };
    const Fixed r = fix_fixture(rule, "qux_header.c", "drivers/misc/qux_header.c", values);
    dump("qux_header.c", r.fix.fixed);
    EXPECT_EQ(r.fix.fixed, read_fixture("qux_header.expected.c"));
    EXPECT_EQ(r.fix.sites.size(), 3u);
    const SiteOutcome* unresolved = skipped_call(r.skipped, "msleep(chip->delay)");
    ASSERT_NE(unresolved, nullptr);
    EXPECT_EQ(unresolved->reason, "argument is not a constant");
    expect_idempotent(rule, r.fix, values);
}

TEST(FixEditKinds, CallsInMacroBodiesAreRewrittenWhereTheArgumentIsConstant) {
    const Rule rule = testing::shipped_rule();
    // The scanner folds quux_wait(2)'s argument through its one expansion.
    const Fixed r = fix_fixture(rule, "quux_body.c", "drivers/misc/quux_body.c",
                                {{"ms", {2, Resolution::Expression, ""}}});
    dump("quux_body.c", r.fix.fixed);
    EXPECT_EQ(r.fix.fixed, read_fixture("quux_body.expected.c"));
    EXPECT_EQ(r.fix.sites.size(), 2u);
    const SiteOutcome* param = skipped_call(r.skipped, "msleep(ms)");
    ASSERT_NE(param, nullptr);
    EXPECT_NE(param->reason.find("parameter of macro quux_wait"), std::string::npos);
    expect_idempotent(rule, r.fix, {{"ms", {2, Resolution::Expression, ""}}});
}

TEST(FixEditKinds, FsleepTargetNeedsNoSlackConstant) {
    Rule rule = testing::shipped_rule();
    rule.target = Target::Fsleep;
    const Fixed r = fix_fixture(rule, "literal.c", "drivers/misc/foo.c");
    dump("literal.fsleep.c", r.fix.fixed);
    EXPECT_EQ(r.fix.fixed, read_fixture("literal.fsleep.expected.c"));
    EXPECT_TRUE(r.fix.slack_name.empty());
    EXPECT_FALSE(r.fix.slack_defined_here);
    expect_idempotent(rule, r.fix);
}

} // namespace
} // namespace ksweep
