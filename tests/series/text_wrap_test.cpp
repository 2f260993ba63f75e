// git's wrapping (Subject folding, shortlog), commit-body wrapping at 75 columns and subject
// summaries capped at 75.
#include "series/message.h"
#include "series/text_wrap.h"

#include <gtest/gtest.h>
#include <sstream>

using namespace ksweep::series;

namespace {

TEST(GitWrap, FoldsAfterAnAlreadyStartedLineLikeGitsSubject) {
    // "Subject: [PATCH 2/3] " is 21 columns: the text continues that line, then wraps at 78
    // with a one-space indent (checked against git in format_patch_test.cpp as well).
    std::string text =
        "tpm: Add a header whose subject is long enough to need all 75 columns of it";
    EXPECT_EQ(git_wrap(text, -21, 1, 78),
              "tpm: Add a header whose subject is long enough to need\n all 75 columns of it");
    EXPECT_EQ(git_wrap("short", -21, 1, 78), "short");
}

TEST(GitWrap, ShortlogIndentsTwoThenFour) {
    EXPECT_EQ(
        git_wrap("tpm: tpm_tis_i2c_cr50: Use usleep_range() for sleeps shorter than twenty ms", 2,
                 4, 72),
        "  tpm: tpm_tis_i2c_cr50: Use usleep_range() for sleeps shorter than\n"
        "    twenty ms");
    // A word longer than the width still goes on a line of its own.
    EXPECT_EQ(git_wrap(std::string(80, 'x'), 2, 4, 72), "  " + std::string(80, 'x'));
}

TEST(WrapBody, RefillsParagraphsAndKeepsTablesApart) {
    std::string text =
        "one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen\nsixteen\n\n\n\n"
        "  f(): msleep(TPM_I2C_RETRY_DELAY_SHORT) (2 ms) sleeps up to 12 ms at least\n"
        "  g(): msleep(1) sleeps up to 12 ms\n\n- item one that is long enough to "
        "wrap around the seventy-five column limit of it\n";
    std::string out = wrap_body(text, 40);
    EXPECT_EQ(out, "one two three four five six seven eight\n"
                   "nine ten eleven twelve thirteen fourteen\n"
                   "fifteen sixteen\n"
                   "\n"
                   "  f(): msleep(TPM_I2C_RETRY_DELAY_SHORT)\n"
                   "      (2 ms) sleeps up to 12 ms at least\n"
                   "  g(): msleep(1) sleeps up to 12 ms\n"
                   "\n"
                   "- item one that is long enough to wrap\n"
                   "  around the seventy-five column limit\n"
                   "  of it\n");
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        EXPECT_LE(line.size(), 40u) << line;
}

} // namespace

namespace {

// Regression: a uniqueness suffix on a summary at the 75-column limit was cut off again,
// so the subject never became unique and the loop looking for one never ended.
// A number is never split from its unit: "12\nms" reads as two figures.
TEST(WrapBody, SeriesKeepsANumberWithItsUnit) {
    // "The call sleeps up to 12" fills 24 columns exactly; the unit takes the number along.
    EXPECT_EQ(wrap_body("The call sleeps up to 12 ms, not 1 ms.", 24),
              "The call sleeps up to\n12 ms, not 1 ms.\n");
    EXPECT_EQ(wrap_body("with a slack of 300 us (TPM_X_RANGE) here", 20),
              "with a slack of\n300 us (TPM_X_RANGE)\nhere\n");
    EXPECT_EQ(wrap_body("went from 23.1 ms to 14.5 ms.", 14), "went from\n23.1 ms to\n14.5 ms.\n");
    EXPECT_EQ(wrap_tokens("up to 12 ms) and 25 % of 4 jiffies, HZ=250 or 2 drivers"),
              (std::vector<std::string>{"up", "to", "12 ms)", "and", "25 %", "of", "4 jiffies,",
                                        "HZ=250", "or", "2", "drivers"}));
}

TEST(FullSummary, KeepsTheSuffixThatMakesItUnique) {
    std::string prefix = "tpm: tpm_tis_i2c_cr50";
    std::string summary = "Use usleep_range() for sleeps shorter than twenty milliseconds";
    std::string plain = full_summary(prefix, summary);
    EXPECT_LE(plain.size(), 75u);
    EXPECT_EQ(plain, "tpm: tpm_tis_i2c_cr50: Use usleep_range() for sleeps shorter than twenty");
    std::string second = full_summary(prefix, summary, 75, " (2)");
    EXPECT_LE(second.size(), 75u);
    EXPECT_NE(second, plain);
    EXPECT_EQ(second.substr(second.size() - 4), " (2)");
}

} // namespace
