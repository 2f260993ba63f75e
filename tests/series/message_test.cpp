// Commit messages and cover letters in the tree's own words: the timers document the tree has
// (or no sentence about one), every figure labelled with its source (the sleep model and where
// HZ came from, or a ksweep validate report), the cover letter's first line from the model, and
// fsleep()'s slack as this tree has it.
#include "series/cover_letter.h"
#include "series/message.h"

#include <gtest/gtest.h>
#include <regex>

using namespace ksweep;
using namespace ksweep::series;

namespace {

FileFix file_fix(const std::string& file, const std::vector<std::pair<int, double>>& sleeps) {
    FileFix f;
    f.file = file;
    f.slack_name = "FOO_DELAY_RANGE";
    for (auto [ms, predicted] : sleeps) {
        SiteOutcome site;
        site.fixed = true;
        site.finding.file = file;
        site.finding.function = "foo_wait";
        site.finding.callee = "msleep";
        site.finding.call = "msleep(" + std::to_string(ms) + ")";
        site.finding.value = ms;
        site.finding.predicted_sleep_ms = predicted;
        site.finding.actionable = true;
        f.sites.push_back(site);
    }
    return f;
}

std::string flat(const std::string& text) {
    return std::regex_replace(text, std::regex("\\s+"), " ");
}

class SeriesMessageTest : public ::testing::Test {
  protected:
    Rule rule = load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
    FileFix foo = file_fix("drivers/misc/foo.c", {{2, 12}, {10, 20}});
    kbuild::SleepApi api;
    MessageContext ctx;

    void SetUp() override {
        ctx.rule = &rule;
        ctx.files = {&foo};
        ctx.hz = 250;
        ctx.kernel = {6, 1, 0};
        ctx.hz_label = "HZ=250 from the tree's .config";
        api.fsleep = kbuild::FsleepKind::DoubleRange;
        api.fsleep_source = "include/linux/delay.h:86";
        api.timers_doc = "Documentation/timers/timers-howto.rst";
        ctx.sleep_api = &api;
    }
    std::string body() { return flat(commit_body(ctx, "A <a@example.org>")); }
};

TEST_F(SeriesMessageTest, CitesTheTimersDocumentTheTreeHas) {
    EXPECT_NE(body().find("Documentation/timers/timers-howto.rst recommends usleep_range() for "
                          "sleeps of 10 us to 20 ms."),
              std::string::npos)
        << body();
    api.timers_doc = "Documentation/timers/delay_sleep_functions.rst";
    std::string b = body();
    EXPECT_EQ(b.find("timers-howto"), std::string::npos) << b;
    EXPECT_NE(b.find("Documentation/timers/delay_sleep_functions.rst advises usleep_range() "
                     "where msleep() is not accurate enough"),
              std::string::npos)
        << b;
    EXPECT_EQ(expand("{timers_doc}", message_values(ctx)),
              "Documentation/timers/delay_sleep_functions.rst");
}

TEST_F(SeriesMessageTest, NoTimersDocumentNoSentenceAboutOne) {
    api.timers_doc = "";
    std::string b = body();
    EXPECT_EQ(b.find("Documentation/"), std::string::npos) << b;
    EXPECT_EQ(b.find("recommends"), std::string::npos) << b;
    EXPECT_NE(b.find("wakes within its range. Each range allows"), std::string::npos) << b;
    ctx.sleep_api = nullptr; // not read: nothing that depends on it either
    EXPECT_EQ(body().find("Documentation/"), std::string::npos) << body();
}

TEST_F(SeriesMessageTest, SleepModelFiguresSayWhereHzCameFrom) {
    std::string b = body();
    EXPECT_NE(b.find("what they ask for (sleep model, HZ=250 from the tree's .config): "),
              std::string::npos)
        << b;
    ctx.hz = 1000;
    ctx.hz_label = "HZ=1000 as given with --hz";
    EXPECT_NE(body().find("(sleep model, HZ=1000 as given with --hz)"), std::string::npos);
    ctx.hz_label = "";
    EXPECT_EQ(model_label(ctx), "sleep model, HZ=1000");
}

// 25 % slack is fsleep()'s only where the tree's fsleep() says so.
TEST_F(SeriesMessageTest, QuarterSlackIsCreditedToFsleepOnlyWhereTheTreeHasIt) {
    rule.slack.policy = SlackPolicy::Percent;
    rule.slack.percent = 25;
    rule.slack.floor_us = 50;
    rule.overrides.clear();
    std::string b = body();
    EXPECT_NE(b.find("the slack fsleep() uses from v6.13 on (this tree's allows 100%)"),
              std::string::npos)
        << b;
    api.fsleep = kbuild::FsleepKind::QuarterSlack;
    EXPECT_NE(body().find("the slack this tree's fsleep() uses"), std::string::npos) << body();
    rule.slack.percent = 10;
    EXPECT_EQ(body().find("fsleep"), std::string::npos) << body();
}

// A range that can outlast the msleep() it replaces at a common HZ is said, with the figures;
// one that never does is not mentioned.
TEST_F(SeriesMessageTest, ARangeLongerThanMsleepAtSomeHzIsSaid) {
    // msleep(15) alone: its slack is a quarter of it, 3.75 ms, more than HZ=1000 adds to it.
    foo = file_fix("drivers/misc/foo.c", {{15, 24}});
    foo.sites[0].finding.predicted_by_hz = {{100, 30}, {250, 24}, {1000, 17}};
    foo.slack_us = 3750;
    EXPECT_NE(body().find("foo_wait(): msleep(15) sleeps up to 17 ms at HZ=1000, less than its "
                          "range's 18.75 ms: on such a kernel the new sleep can last up to "
                          "1.75 ms longer."),
              std::string::npos)
        << body();
    // Beside msleep(4) the slack is 1 ms: no range outlasts its msleep() at any HZ.
    foo = file_fix("drivers/misc/foo.c", {{4, 12}, {15, 24}});
    foo.sites[0].finding.predicted_by_hz = {{100, 30}, {250, 12}, {1000, 6}};
    foo.sites[1].finding.predicted_by_hz = {{100, 30}, {250, 24}, {1000, 17}};
    foo.slack_us = 1000;
    EXPECT_EQ(body().find("can last up to"), std::string::npos) << body();
}

TEST_F(SeriesMessageTest, CoverLetterFirstLineIsTheSleepModelsForTheTreesHz) {
    FileFix bar = file_fix("drivers/misc/bar.c", {{5, 12}});
    std::vector<CoverPatch> patches = {{"misc: foo: Use usleep_range()", {&foo}},
                                       {"misc: bar: Use usleep_range()", {&bar}}};
    ValidationFigures none;
    std::string blurb = cover_blurb(rule, patches, ctx, none, {});
    std::string first = blurb.substr(0, blurb.find("\n\n"));
    EXPECT_EQ(flat(first), "The msleep() calls this series converts ask for 2 to 10 ms and sleep "
                           "for up to 12 to 20 ms (sleep model, HZ=250 from the tree's .config).");
    EXPECT_EQ(blurb.find("or more at HZ"), std::string::npos) << blurb;
    EXPECT_NE(flat(blurb).find("Documentation/timers/timers-howto.rst recommends"),
              std::string::npos)
        << blurb;

    std::vector<CoverPatch> one = {{"misc: bar: Use usleep_range()", {&bar}}};
    ctx.hz_label = "HZ=250 as given with --hz";
    std::string single = cover_blurb(rule, one, ctx, none, {});
    EXPECT_EQ(flat(single.substr(0, single.find("\n\n"))),
              "The msleep() calls this series converts ask for 5 ms and sleep for up to 12 ms "
              "(sleep model, HZ=250 as given with --hz).");
}

} // namespace

// A sleep in a loop that gives up after a number of tries: what became of the loop and its
// budget before and after at each HZ, in the commit message and in the cover letter.
class LoopMessageTest : public SeriesMessageTest {
  protected:
    void counted(SiteOutcome& site, const std::string& policy,
                 std::vector<std::pair<int, double>> after) {
        site.finding.loop.ends_by = LoopEnd::Count;
        site.finding.loop.statement = "do";
        site.finding.loop.tries = 2;
        site.finding.loop.waits_for =
            LoopWait{"regmap_read", "regmap_read(map, REG, &val)", "val", "val & READY"};
        site.finding.loop.budget_ms_by_hz = {{100, 60}, {250, 24}, {1000, 10}};
        site.loop.policy = policy;
        site.loop.after_ms_by_hz = std::move(after);
    }
};

TEST_F(LoopMessageTest, KeepSaysHowTheBudgetFallsAtEachHz) {
    counted(foo.sites[0], "keep", {{100, 5}, {250, 5}, {1000, 5}});
    foo.sites[0].loop.why = "read_poll_timeout() does not fit: its body does more than read, "
                            "test and sleep (line 9: x++)";
    const std::string b = body();
    EXPECT_NE(b.find("foo_wait(): msleep(2) paces a do loop that gives up after 2 tries waiting "
                     "for val & READY: with the new sleep the loop's budget falls: 24 ms -> 5 ms "
                     "at HZ=250 (HZ=100: 60 -> 5, HZ=1000: 10 -> 5) (sleep model, HZ=250 from "
                     "the tree's .config). It keeps its loop because read_poll_timeout() does "
                     "not fit: its body does more than read, test and sleep (line 9: x++)."),
              std::string::npos)
        << b;
    // The cover letter lists it with its budget.
    const std::vector<CoverPatch> patches = {{"misc: foo: Use usleep_range()", {&foo}}};
    const std::string cover = flat(cover_blurb(rule, patches, ctx, {}, {}));
    EXPECT_NE(cover.find("1 sleep here may pace a loop that gives up after a number of tries, a "
                         "driver's timeout: 1 loop keeps its shorter sleep, and with it a "
                         "shorter budget."),
              std::string::npos)
        << cover;
    EXPECT_NE(cover.find("- drivers/misc/foo.c, foo_wait(): do loop of 2 tries kept, budget 24 ms "
                         "-> 5 ms at HZ=250 (HZ=100: 60 -> 5, HZ=1000: 10 -> 5)"),
              std::string::npos)
        << cover;
}

TEST_F(LoopMessageTest, IopollSaysTheTimeoutWhereItComesFromAndThatErrorsStay) {
    counted(foo.sites[0], "iopoll", {{100, 63}, {250, 63}, {1000, 63}});
    LoopOutcome& o = foo.sites[0].loop;
    o.helper = "read_poll_timeout";
    o.sleep_us = 3000;
    o.timeout_us = 60000;
    o.timeout_why = "the longest the loop waits today, at HZ=100";
    o.poll_sleep = "usleep_range(751, 3000) (include/linux/iopoll.h:55)";
    const std::string b = body();
    EXPECT_NE(b.find("The loop becomes read_poll_timeout() with a sleep of 3000 us between reads "
                     "and a timeout of 60000 us: the longest the loop waits today, at HZ=100, so "
                     "it never gives up sooner than it did; between reads it sleeps "
                     "usleep_range(751, 3000) (include/linux/iopoll.h:55). Its errors are those "
                     "the loop returned. Longest wait before it gives up: 24 ms -> 63 ms at "
                     "HZ=250"),
              std::string::npos)
        << b;
}

TEST_F(LoopMessageTest, ALoopNotAnalysedIsSaidAndATemplateWithoutLoopsStillSaysIt) {
    foo.sites[0].loop.policy = "keep";
    foo.sites[0].loop.why = "its loop, if any, was not analysed (not analysed: the semantic "
                            "engine is off (--lexical-only))";
    rule.body_template = "Short sleeps:\n\n{sites}\n";
    const std::string b = body();
    EXPECT_NE(b.find("foo_wait(): msleep(2): its loop, if any, was not analysed (not analysed: "
                     "the semantic engine is off (--lexical-only)); whether a loop around it "
                     "gives up after a number of tries, and how much sooner with the shorter "
                     "sleep, is for the reviewer to check."),
              std::string::npos)
        << b;
}

TEST_F(LoopMessageTest, AGrowingBudgetIsNotCalledAFall) {
    counted(foo.sites[0], "keep", {{100, 80}, {250, 80}, {1000, 80}});
    EXPECT_NE(body().find("the loop's budget grows: 24 ms -> 80 ms at HZ=250"), std::string::npos);
}
