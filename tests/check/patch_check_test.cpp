// The gate on the fixture tree (tests/fixtures/check/tree, a tiny driver with a header):
// each patch in tests/fixtures/check/patches is one case the gate must get right.
#include "check/patch_check.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::check {
namespace {

const std::string kTree = std::string(KSWEEP_FIXTURES) + "/check/tree";
const std::string kPatches = std::string(KSWEEP_FIXTURES) + "/check/patches";

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

class PatchCheckTest : public ::testing::Test {
  protected:
    PatchCheckTest() : rule_(load_rule(default_rule_path())) {}

    InputReport check(const std::string& name) {
        PatchChecker checker(rule_, CheckOptions{kTree, "", true, 250});
        Overlay overlay;
        CheckInput input{name, name, read_file(kPatches + "/" + name), tree_reader(kTree)};
        return checker.check(input, overlay);
    }

    Rule rule_;
};

TEST_F(PatchCheckTest, AddedLiteral) {
    InputReport r = check("add_literal.patch");
    ASSERT_EQ(r.warnings.size(), 1u);
    const Warning& w = r.warnings[0];
    EXPECT_EQ(w.finding.file, "drivers/foo/foo.c");
    EXPECT_EQ(w.finding.line, 13u);
    EXPECT_EQ(w.input_line, 18u);
    EXPECT_EQ(w.added_line, "\tmsleep(3);");
    EXPECT_EQ(w.finding.resolution, Resolution::Literal);
    // What ksweep fix writes for it: the file's named slack constant, 25 % of 3 ms.
    EXPECT_EQ(w.advice.replacement, "usleep_range(3000, 3000 + FOO_DELAY_RANGE)");
    EXPECT_EQ(w.advice.slack_define, "#define FOO_DELAY_RANGE 750");
    EXPECT_EQ(w.message, "msleep(3) < 20ms can sleep for up to 12ms at HZ=250; use "
                         "usleep_range(3000, 3000 + FOO_DELAY_RANGE) with #define "
                         "FOO_DELAY_RANGE 750; see msleep()'s kernel-doc");
}

TEST_F(PatchCheckTest, MacroThePatchDefines) {
    InputReport r = check("add_macro_defined_in_patch.patch");
    ASSERT_EQ(r.warnings.size(), 1u);
    const Finding& f = r.warnings[0].finding;
    EXPECT_EQ(f.constant, "FOO_POLL_MS");
    EXPECT_EQ(f.value, 4);
    EXPECT_EQ(f.defined_at, "drivers/foo/foo.c:9");
    EXPECT_NE(r.warnings[0].message.find("FOO_POLL_MS is 4 (#define at drivers/foo/foo.c:9, "
                                         "added by this patch)"),
              std::string::npos)
        << r.warnings[0].message;
}

TEST_F(PatchCheckTest, MacroThePatchAddsToAHeader) {
    // The tree's foo.h has no FOO_RETRY_MS: only the patched header resolves it.
    InputReport r = check("add_macro_defined_in_patched_header.patch");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].finding.value, 7);
    EXPECT_EQ(r.warnings[0].finding.defined_at, "drivers/foo/foo.h:7");
    // foo_poll()'s test reads the device itself: the advice is the poll fix writes.
    EXPECT_EQ(r.warnings[0].advice.replacement,
              "read_poll_timeout(foo_read, val, val & 1, FOO_RETRY_MS * USEC_PER_MSEC, 300000, "
              "false, foo, FOO_REG_STATUS)");
}

TEST_F(PatchCheckTest, MacroFromAHeaderThePatchDoesNotTouch) {
    InputReport r = check("add_header_macro.patch");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].finding.resolution, Resolution::Macro);
    EXPECT_EQ(r.warnings[0].finding.value, 2);
    EXPECT_EQ(r.warnings[0].finding.defined_at, "drivers/foo/foo.h:6");
}

TEST_F(PatchCheckTest, Enum) {
    InputReport r = check("add_enum.patch");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].finding.resolution, Resolution::Enum);
    EXPECT_EQ(r.warnings[0].finding.value, 5);
    EXPECT_NE(r.warnings[0].message.find("FOO_TIMEOUT is 5 (enumerator at drivers/foo/foo.h:9)"),
              std::string::npos)
        << r.warnings[0].message;
}

TEST_F(PatchCheckTest, Expression) {
    InputReport r = check("add_expression.patch");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].finding.value, 6);
    EXPECT_EQ(r.warnings[0].advice.replacement,
              "read_poll_timeout(foo_read, val, val & 1, FOO_SETTLE_MS * 3 * USEC_PER_MSEC, "
              "300000, false, foo, FOO_REG_STATUS)");
}

TEST_F(PatchCheckTest, LongSleepIsClean) {
    EXPECT_TRUE(check("add_25.patch").warnings.empty());
}

TEST_F(PatchCheckTest, RemovingOrMovingAnMsleepIsClean) {
    EXPECT_TRUE(check("remove_msleep.patch").warnings.empty());
    // move_msleep.patch adds "msleep(10);" at a new place and removes it from the old one.
    EXPECT_TRUE(check("move_msleep.patch").warnings.empty());
}

TEST_F(PatchCheckTest, NewFile) {
    InputReport r = check("new_file.patch");
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].finding.file, "drivers/foo/bar.c");
    EXPECT_EQ(r.warnings[0].finding.line, 8u);
}

TEST_F(PatchCheckTest, SeriesAppliesPatchesInOrder) {
    // Patch 1 defines FOO_RETRY_MS in foo.h, patch 2 uses it.
    InputReport r = check("series.mbox");
    EXPECT_EQ(r.patches, 2u);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].patch_subject, "[PATCH 2/2] foo: retry with the named delay");
    EXPECT_EQ(r.warnings[0].finding.value, 7);
}

TEST_F(PatchCheckTest, MalformedPatchIsAnError) {
    try {
        check("malformed.patch");
        FAIL() << "a damaged hunk passed";
    } catch (const CheckError& e) {
        EXPECT_NE(std::string(e.what()).find("unexpected line in hunk"), std::string::npos)
            << e.what();
    }
}

TEST_F(PatchCheckTest, PatchThatDoesNotApplyIsAnError) {
    try {
        check("does_not_apply.patch");
        FAIL() << "a patch against another foo.c passed";
    } catch (const CheckError& e) {
        EXPECT_NE(std::string(e.what()).find("drivers/foo/foo.c: hunk #1 (patch line 14) does not "
                                             "apply: line 12 is"),
                  std::string::npos)
            << e.what();
    }
}

TEST_F(PatchCheckTest, AMailWithoutADiffIsAnErrorUnlessItIsACoverLetter) {
    PatchChecker checker(rule_, CheckOptions{kTree, "", true, 250});
    Overlay overlay;
    CheckInput mail{"m", "m", "Subject: [PATCH] foo: thoughts\n\nno diff here\n",
                    tree_reader(kTree)};
    EXPECT_THROW(checker.check(mail, overlay), CheckError);
    CheckInput cover{"m", "m", "Subject: [PATCH 0/2] foo: a series\n\nthe plan\n",
                     tree_reader(kTree)};
    InputReport r = checker.check(cover, overlay);
    EXPECT_EQ(r.patches, 0u);
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0], "m: cover letter ([PATCH 0/2]), no diff: skipped");
    // git format-patch names it so even when its subject was edited.
    CheckInput named{"out/0000-cover-letter.patch", "x", "Subject: foo: a series\n\n",
                     tree_reader(kTree)};
    EXPECT_EQ(checker.check(named, overlay).notes.size(), 1u);
}

TEST_F(PatchCheckTest, CreatingAFileThatExistsIsAnError) {
    PatchChecker checker(rule_, CheckOptions{kTree, "", true, 250});
    Overlay overlay;
    CheckInput input{"x", "x", "--- /dev/null\n+++ b/drivers/foo/foo.h\n@@ -0,0 +1 @@\n+int x;\n",
                     tree_reader(kTree)};
    EXPECT_THROW(checker.check(input, overlay), CheckError);
}

TEST_F(PatchCheckTest, TreeIsNeverWritten) {
    std::map<std::string, std::string> before;
    for (const auto& e : fs::recursive_directory_iterator(kTree))
        if (e.is_regular_file())
            before[e.path().string()] = read_file(e.path().string());
    for (const auto& e : fs::directory_iterator(kPatches)) {
        try {
            check(e.path().filename().string());
        } catch (const CheckError&) {
        }
    }
    std::map<std::string, std::string> after;
    for (const auto& e : fs::recursive_directory_iterator(kTree))
        if (e.is_regular_file())
            after[e.path().string()] = read_file(e.path().string());
    EXPECT_EQ(before, after);
}

} // namespace
} // namespace ksweep::check
