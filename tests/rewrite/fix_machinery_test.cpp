// The fixer's parts: overlap refusal, kernel-style layout, unit comments, slack naming and
// policy, macro-use classification, and the sites it must leave alone.
#include "fix_test_support.h"
#include "rewrite/applier.h"
#include "rewrite/fixer.h"
#include "rewrite/kernel_style.h"
#include "rewrite/macro_uses.h"
#include "rewrite/slack_name.h"

#include <gtest/gtest.h>

namespace ksweep {
namespace {

using testing::findings_in;
using testing::Resolved;

FileFix fix_text(const Rule& rule, const std::string& path, const std::string& text,
                 std::vector<SiteOutcome>& skipped,
                 const std::map<std::string, Resolved>& values = {}) {
    return fix_file_text(rule, path, text, findings_in(rule, path, text, values), skipped);
}

// --- applier ---------------------------------------------------------------------------------

TEST(FixApplier, ConflictsAreOverlapsAndInsertionsInsideOrAtTheSamePoint) {
    EXPECT_TRUE(edits_conflict({0, 5, "a"}, {4, 8, "b"}));
    EXPECT_FALSE(edits_conflict({0, 5, "a"}, {5, 8, "b"}));  // adjacent
    EXPECT_TRUE(edits_conflict({0, 5, "a"}, {3, 3, "ins"})); // inserts inside
    EXPECT_FALSE(edits_conflict({0, 5, "a"}, {5, 5, "ins"}));
    EXPECT_TRUE(edits_conflict({7, 7, "x"}, {7, 7, "y"})); // order would be a guess
}

TEST(FixApplier, AGroupThatOverlapsAnEarlierOneIsRefusedWhole) {
    EditGroup first, second, third;
    first.edits = {{10, 20, "A"}};
    second.edits = {{0, 2, "B"}, {15, 16, "C"}}; // its second edit overlaps the first group
    third.edits = {{30, 31, "D"}};
    EXPECT_EQ(accept_groups({first, second, third}), (std::vector<bool>{true, false, true}));
    EXPECT_EQ(apply_edits("0123456789abcdefghijklmnopqrstuvwxyz", {{10, 20, "A"}, {30, 31, "D"}}),
              "0123456789AklmnopqrstDvwxyz");
    EXPECT_THROW(apply_edits("0123456789", {{0, 5, "x"}, {4, 6, "y"}}), std::logic_error);
}

TEST(FixApplier, ConflictingSitesInOneFileAreRefusedPerSiteNeverHalfApplied) {
    // The scanner reports the call in bar_settle()'s body on its own (folded as an expression),
    // while the macro conversion of BAR_DELAY wants to rewrite that same call with its uses.
    const std::string text = "#include <linux/delay.h>\n"
                             "\n"
                             "#define BAR_DELAY\t2\t/* msec */\n"
                             "#define bar_settle()\tmsleep(BAR_DELAY)\n"
                             "\n"
                             "static void bar(void)\n"
                             "{\n"
                             "\tmsleep(BAR_DELAY);\n"
                             "}\n";
    const Rule rule = testing::shipped_rule();
    auto findings =
        findings_in(rule, "drivers/misc/bar.c", text, {{"BAR_DELAY", {2, Resolution::Macro, ""}}});
    ASSERT_EQ(findings.size(), 2u);
    findings[0].constant.clear(); // the call in the body: no single constant
    findings[0].resolution = Resolution::Expression;
    std::vector<SiteOutcome> skipped;
    const FileFix fix = fix_file_text(rule, "drivers/misc/bar.c", text, findings, skipped);
    // The body's call was planned first and won; the macro group (both uses) was refused whole,
    // so BAR_DELAY stays in ms and the function's call is untouched.
    ASSERT_EQ(fix.sites.size(), 1u);
    EXPECT_EQ(fix.sites[0].finding.line, 4u);
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_EQ(skipped[0].finding.line, 8u);
    EXPECT_EQ(skipped[0].reason, "its edits overlap another site's");
    EXPECT_NE(fix.fixed.find("#define BAR_DELAY\t2\t/* msec */"), std::string::npos);
    EXPECT_NE(fix.fixed.find("\tmsleep(BAR_DELAY);\n"), std::string::npos);
    EXPECT_NE(fix.fixed.find("usleep_range(BAR_DELAY * USEC_PER_MSEC"), std::string::npos);
}

// --- kernel style ----------------------------------------------------------------------------

TEST(FixKernelStyle, ColumnsCountTabsAsEight) {
    EXPECT_EQ(column_at("x\n\t\tfoo", 4), 16u);
    EXPECT_EQ(column_at("\t  a", 3), 10u);
    EXPECT_EQ(indent_to(21, true), "\t\t     ");
    EXPECT_EQ(indent_to(5, false), "     ");
    EXPECT_EQ(pad_between(30, 40, true), "\t\t");
    EXPECT_EQ(pad_between(30, 35, false), "     ");
}

TEST(FixKernelStyle, CallsWrapAtEightyColumnsAlignedWithTheOpenParenthesis) {
    const CallText call{"usleep_range",
                        {{"TPM_I2C_BUS_DELAY"}, {"TPM_I2C_BUS_DELAY", "TPM_I2C_DELAY_RANGE"}}};
    // One line when it fits (8 + 74 columns would not; 0 + 74 does).
    EXPECT_EQ(layout_call(call, 0, 1, true),
              "usleep_range(TPM_I2C_BUS_DELAY, TPM_I2C_BUS_DELAY + TPM_I2C_DELAY_RANGE)");
    EXPECT_EQ(
        layout_call(call, 16, 1, true),
        "usleep_range(TPM_I2C_BUS_DELAY,\n\t\t\t     TPM_I2C_BUS_DELAY + TPM_I2C_DELAY_RANGE)");
    const CallText longer{
        "usleep_range",
        {{"TPM_I2C_RETRY_DELAY_SHORT"}, {"TPM_I2C_RETRY_DELAY_SHORT", "TPM_I2C_DELAY_RANGE"}}};
    EXPECT_EQ(layout_call(longer, 32, 1, true), "usleep_range(TPM_I2C_RETRY_DELAY_SHORT,\n"
                                                "\t\t\t\t\t     TPM_I2C_RETRY_DELAY_SHORT +\n"
                                                "\t\t\t\t\t     TPM_I2C_DELAY_RANGE)");
    // Inside a #define every broken line continues with a backslash.
    EXPECT_EQ(layout_call(call, 24, 0, true, {true, 0}),
              "usleep_range(TPM_I2C_BUS_DELAY, \\\n\t\t\t\t     TPM_I2C_BUS_DELAY + "
              "TPM_I2C_DELAY_RANGE)");
}

TEST(FixKernelStyle, UnitCommentsAndNames) {
    EXPECT_EQ(comment_in_usec("/* msec */"), "/* usec */");
    EXPECT_EQ(comment_in_usec("/* delay in ms */"), "/* delay in us */");
    EXPECT_EQ(comment_in_usec("/* Milliseconds to wait */"), "/* Microseconds to wait */");
    EXPECT_EQ(comment_in_usec("// MSECS"), "// USECS");
    EXPECT_EQ(comment_in_usec("/* bus settle time */"), std::nullopt);
    EXPECT_EQ(comment_in_usec("/* msi vector */"), std::nullopt);
    EXPECT_TRUE(name_says_milliseconds("FOO_DELAY_MS"));
    EXPECT_TRUE(name_says_milliseconds("foo_msec_wait"));
    EXPECT_FALSE(name_says_milliseconds("FOO_MSI_DELAY"));
    EXPECT_FALSE(name_says_milliseconds("TPM_I2C_BUS_DELAY"));
}

TEST(FixKernelStyle, ParenthesesOnlyWhereMultiplicationWouldBindDifferently) {
    EXPECT_FALSE(needs_parens_before_multiply("FOO"));
    EXPECT_FALSE(needs_parens_before_multiply("FOO * 2"));
    EXPECT_FALSE(needs_parens_before_multiply("(FOO + 1)"));
    EXPECT_FALSE(needs_parens_before_multiply("-5"));
    EXPECT_TRUE(needs_parens_before_multiply("FOO + 1"));
    EXPECT_TRUE(needs_parens_before_multiply("a ? 1 : 2"));
    EXPECT_TRUE(needs_parens_before_multiply("(a) + (b)"));
    EXPECT_TRUE(fully_parenthesised("((a) + (b))"));
    EXPECT_FALSE(fully_parenthesised("(a) + (b)"));
}

TEST(FixKernelStyle, ATrailingCommentMovesAboveWhenTheCallNoLongerFitsBesideIt) {
    // Regression: drivers/media/i2c/adv7604.c came out as a call broken over three lines with
    // its comment still behind it, 108 columns wide.
    const std::string text =
        "#include <linux/delay.h>\n"
        "\n"
        "#define ADV_CTRL\t1\n"
        "#define ADV_STATUS\t2\n"
        "\n"
        "static void adv(void)\n"
        "{\n"
        "\tmsleep(16); /* 512 samples with >= 32 kHz sample rate [REF_03, c. 7.16.10] */\n"
        "\tmsleep(2); /* short */\n"
        "}\n";
    std::vector<SiteOutcome> skipped;
    const FileFix fix = fix_text(testing::shipped_rule(), "drivers/media/adv.c", text, skipped);
    EXPECT_EQ(fix.fixed, "#include <linux/delay.h>\n"
                         "\n"
                         "#define ADV_CTRL\t1\n"
                         "#define ADV_STATUS\t2\n"
                         "#define ADV_DELAY_RANGE\t500\t/* usleep_range() slack, usec */\n"
                         "\n"
                         "static void adv(void)\n"
                         "{\n"
                         "\t/* 512 samples with >= 32 kHz sample rate [REF_03, c. 7.16.10] */\n"
                         "\tusleep_range(16000, 16000 + ADV_DELAY_RANGE);\n"
                         "\tusleep_range(2000, 2000 + ADV_DELAY_RANGE); /* short */\n"
                         "}\n");
}

// --- slack name and policy -------------------------------------------------------------------

TEST(FixSlackName, PrefixSharedByMostNames) {
    EXPECT_EQ(
        shared_macro_prefix({"TPM_I2C_MAX_BUF_SIZE", "TPM_I2C_RETRY_COUNT", "TPM_I2C_BUS_DELAY",
                             "TPM_I2C_RETRY_DELAY_SHORT", "TPM_I2C_RETRY_DELAY_LONG"}),
        "TPM_I2C");
    EXPECT_EQ(shared_macro_prefix({"TPM_CR50_MAX_BUFSIZE", "TPM_CR50_TIMEOUT_SHORT_MS",
                                   "TPM_CR50_TIMEOUT_NOIRQ_MS", "TPM_CR50_I2C_DID_VID",
                                   "TPM_TI50_I2C_DID_VID", "TPM_CR50_I2C_MAX_RETRIES",
                                   "TPM_CR50_I2C_RETRY_DELAY_LO", "TPM_CR50_I2C_RETRY_DELAY_HI"}),
              "TPM_CR50");
    EXPECT_EQ(shared_macro_prefix({"FOO_REG_CTRL", "FOO_REG_STATUS"}), "FOO"); // not FOO_REG
    EXPECT_EQ(shared_macro_prefix({"DRIVER_SHORT", "DRIVER_AUTHOR", "DRIVER_DESC"}), "");
    EXPECT_EQ(shared_macro_prefix({"ALONE_DELAY"}), "");
    EXPECT_EQ(file_name_prefix("drivers/char/tpm/tpm_i2c_nuvoton.c"), "TPM_I2C_NUVOTON");
    EXPECT_EQ(file_name_prefix("drivers/iio/adc/ad7091r-base.c"), "AD7091R_BASE");
    EXPECT_EQ(expand_slack_name("{PREFIX}_DELAY_RANGE", "FOO"), "FOO_DELAY_RANGE");
    auto taken = [](const std::string& n) {
        return n == "FOO_DELAY_RANGE" || n == "FOO_DELAY_RANGE_US";
    };
    EXPECT_EQ(unclashing_name("FOO_DELAY_RANGE", taken), "FOO_DELAY_RANGE_2");
}

const char* kTwoSleeps = "#include <linux/delay.h>\n"
                         "\n"
                         "#define FOO_CTRL\t1\n"
                         "#define FOO_STATUS\t2\n"
                         "\n"
                         "static void foo(void)\n"
                         "{\n"
                         "\tmsleep(10);\n"
                         "\tmsleep(4);\n"
                         "}\n";

TEST(FixSlackPolicy, PercentOfTheShortestSleepFixedUnderTpmAndAcpi) {
    Rule rule = testing::shipped_rule();
    std::vector<SiteOutcome> skipped;
    EXPECT_EQ(fix_text(rule, "drivers/misc/foo.c", kTwoSleeps, skipped).slack_us,
              1000); // 25 % of 4 ms
    EXPECT_EQ(fix_text(rule, "drivers/char/tpm/foo.c", kTwoSleeps, skipped).slack_us, 300);
    rule.slack = Slack{SlackPolicy::Acpi, 0, 0, 50};
    EXPECT_EQ(fix_text(rule, "drivers/misc/foo.c", kTwoSleeps, skipped).slack_us,
              50); // 1 % of 4 ms
    rule.slack = Slack{SlackPolicy::Percent, 0, 1, 50};
    EXPECT_EQ(fix_text(rule, "drivers/misc/foo.c", kTwoSleeps, skipped).slack_us, 50); // the floor
}

TEST(FixSlackName, NeverClashesAndReusesItsOwnConstantOnALaterRun) {
    const Rule rule = testing::shipped_rule();
    std::vector<SiteOutcome> skipped;
    std::string clash = kTwoSleeps;
    clash.insert(clash.find("\nstatic"), "#define FOO_DELAY_RANGE(x)\t((x) * 2)\n");
    const FileFix a = fix_text(rule, "drivers/misc/foo.c", clash, skipped);
    EXPECT_EQ(a.slack_name, "FOO_DELAY_RANGE_US");

    std::string later = kTwoSleeps;
    later.insert(later.find("\nstatic"), "#define FOO_DELAY_RANGE\t700\t/* usec */\n");
    const FileFix b = fix_text(rule, "drivers/misc/foo.c", later, skipped);
    EXPECT_EQ(b.slack_name, "FOO_DELAY_RANGE");
    EXPECT_EQ(b.slack_us, 700);
    EXPECT_FALSE(b.slack_defined_here);
    EXPECT_EQ(b.fixed.find("#define FOO_DELAY_RANGE", b.fixed.find("700")), std::string::npos);
}

// --- macro uses ------------------------------------------------------------------------------

TEST(FixMacroUses, EveryUseWithItsContext) {
    const std::string text = "#define D 2 /* msec */\n"
                             "#define W() msleep(D)\n"
                             "#if D > 1\n"
                             "#endif\n"
                             "#ifdef D\n"
                             "#endif\n"
                             "void f(void) { msecs_to_jiffies(D); x = D * 2; }\n";
    const FileIndex index(text);
    const auto defs = index.definitions_of("D");
    ASSERT_EQ(defs.size(), 1u);
    EXPECT_FALSE(defs[0]->function_like);
    ASSERT_TRUE(defs[0]->comment_token);
    EXPECT_EQ(index.tokens()[*defs[0]->comment_token].text, "/* msec */");
    const auto w = index.definitions_of("W");
    ASSERT_EQ(w.size(), 1u);
    EXPECT_TRUE(w[0]->function_like);

    const auto uses = index.uses_of("D");
    ASSERT_EQ(uses.size(), 5u);
    EXPECT_EQ(uses[0].callee, "msleep");
    EXPECT_EQ(uses[0].in_define, "W");
    EXPECT_EQ(uses[1].directive, "if");
    EXPECT_TRUE(uses[2].under_defined);
    EXPECT_EQ(uses[3].callee, "msecs_to_jiffies");
    EXPECT_EQ(uses[4].callee, "");
}

TEST(FixMacroUses, HeaderGuardAndBlocks) {
    const FileIndex header(
        "/* x */\n#ifndef X_H\n#define X_H\n#define A 1\n#define B 2\n\n#define C 3\n#endif\n");
    EXPECT_EQ(header.base_cond_depth(), 1);
    const auto blocks = define_blocks(header);
    ASSERT_EQ(blocks.size(), 2u);
    EXPECT_EQ(blocks[0].size(), 3u); // X_H, A, B
    EXPECT_EQ(blocks[1].size(), 1u);
    EXPECT_EQ(FileIndex("#include <a.h>\n#ifndef X\n#define X 1\n#endif\n").base_cond_depth(), 0);
}

// --- sites left alone ------------------------------------------------------------------------

TEST(FixLeftAlone, InactiveSitesAndFilesWithoutAPlaceForTheConstant) {
    const Rule rule = testing::shipped_rule();
    std::vector<SiteOutcome> skipped;
    const std::string text = "static void f(void)\n{\n\tmsleep(3);\n}\n";
    auto findings = findings_in(rule, "drivers/misc/f.c", text);
    FileFix fix = fix_file_text(rule, "drivers/misc/f.c", text, findings, skipped);
    EXPECT_EQ(fix.fixed, text);
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_NE(skipped[0].reason.find("slack constant"), std::string::npos);

    skipped.clear();
    findings[0].inactive = true;
    fix = fix_file_text(rule, "drivers/misc/f.c", text, findings, skipped);
    ASSERT_EQ(skipped.size(), 1u);
    EXPECT_EQ(skipped[0].reason, "not compiled in this configuration");
}

} // namespace
} // namespace ksweep
