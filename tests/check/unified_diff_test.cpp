// Reading patches: mailboxes, git and plain diffs, new/deleted/renamed files, and the damage
// that must be an error rather than a silent pass.
#include "check/unified_diff.h"
#include "check_test_support.h"

#include <gtest/gtest.h>

namespace ksweep::check {
namespace {

const char* kGitPatch = R"(From 1234567890abcdef1234567890abcdef12345678 Mon Sep 17 00:00:00 2001
From: A Developer <dev@example.com>
Date: Sun, 29 Nov 2026 22:00:00 +0000
Subject: [PATCH] foo: wait for the
 chip to settle

Signed-off-by: A Developer <dev@example.com>
---
 drivers/foo/foo.c | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/drivers/foo/foo.c b/drivers/foo/foo.c
index 1111111..2222222 100644
--- a/drivers/foo/foo.c
+++ b/drivers/foo/foo.c
@@ -10,3 +10,3 @@ static int foo_reset(struct foo *foo)
 	foo_write(foo, RESET);
-	udelay(10);
+	msleep(3);
 	return 0;
-- 
2.39.2
)";

TEST(UnifiedDiff, ReadsAGitFormatPatchMail) {
    auto patches = read_patches(kGitPatch);
    ASSERT_EQ(patches.size(), 1u);
    const Patch& p = patches[0];
    EXPECT_EQ(p.commit, "1234567890abcdef1234567890abcdef12345678");
    EXPECT_EQ(p.subject, "[PATCH] foo: wait for the chip to settle");
    ASSERT_EQ(p.files.size(), 1u);
    const FileDiff& f = p.files[0];
    EXPECT_EQ(f.old_path, "drivers/foo/foo.c");
    EXPECT_EQ(f.new_path, "drivers/foo/foo.c");
    ASSERT_EQ(f.hunks.size(), 1u);
    const Hunk& h = f.hunks[0];
    EXPECT_EQ(h.old_start, 10u);
    EXPECT_EQ(h.new_count, 3u);
    ASSERT_EQ(h.lines.size(), 4u);
    EXPECT_EQ(h.lines[2].kind, '+');
    EXPECT_EQ(h.lines[2].text, "\tmsleep(3);");
    EXPECT_EQ(h.lines[2].input_line, 19u); // checkpatch's "#19:"
    // The "-- " signature after the hunk is not a removed line.
    EXPECT_EQ(h.lines.back().text, "\treturn 0;");
}

TEST(UnifiedDiff, CountsLinesCheckedLikeCheckpatch) {
    // checkpatch.pl counts hunk lines up to the last context/added one: 4 here.
    EXPECT_EQ(read_patches(kGitPatch)[0].lines_checked, 4u);
    // Removed lines after the last new-side line are not counted.
    auto p = read_patches("--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,1 @@\n a\n-b\n-c\n");
    EXPECT_EQ(p[0].lines_checked, 1u);
}

TEST(UnifiedDiff, SplitsAMailboxIntoPatches) {
    std::string mbox = std::string(kGitPatch) + "\n" + kGitPatch;
    auto patches = read_patches(mbox);
    ASSERT_EQ(patches.size(), 2u);
    EXPECT_EQ(patches[1].first_line, 24u);
    EXPECT_EQ(patches[1].files[0].hunks[0].lines[2].input_line, 19u + 23u);
}

TEST(UnifiedDiff, NewDeletedAndRenamedFiles) {
    auto patches = read_patches(R"(diff --git a/drivers/foo/new.h b/drivers/foo/new.h
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/drivers/foo/new.h
@@ -0,0 +1,2 @@
+#define FOO_DELAY 5
+#define FOO_RETRIES 3
diff --git a/drivers/foo/old.c b/drivers/foo/old.c
deleted file mode 100644
index 4444444..0000000
--- a/drivers/foo/old.c
+++ /dev/null
@@ -1 +0,0 @@
-int old;
diff --git a/drivers/foo/a.c b/drivers/foo/b.c
similarity index 100%
rename from drivers/foo/a.c
rename to drivers/foo/b.c
)");
    const auto& files = patches.at(0).files;
    ASSERT_EQ(files.size(), 3u);
    EXPECT_TRUE(files[0].is_new());
    EXPECT_EQ(files[0].new_path, "drivers/foo/new.h");
    EXPECT_TRUE(files[1].is_deleted());
    EXPECT_EQ(files[1].old_path, "drivers/foo/old.c");
    EXPECT_EQ(files[1].hunks.at(0).old_count, 1u);
    EXPECT_EQ(files[2].old_path, "drivers/foo/a.c");
    EXPECT_EQ(files[2].new_path, "drivers/foo/b.c");
    EXPECT_TRUE(files[2].hunks.empty());
}

TEST(UnifiedDiff, PlainDiffWithTimestampsAndNoNewlineMarker) {
    auto patches = read_patches("--- a/x.c\t2026-11-29 22:00:00\n+++ b/x.c\t2026-11-29 22:01:00\n"
                                "@@ -1 +1 @@\n-int a;\n\\ No newline at end of file\n+int b;\n");
    const auto& hunk = patches.at(0).files.at(0).hunks.at(0);
    EXPECT_EQ(patches[0].files[0].new_path, "x.c");
    EXPECT_TRUE(hunk.lines[0].no_newline);
    EXPECT_FALSE(hunk.lines[1].no_newline);
}

TEST(UnifiedDiff, TruncatedHunkIsAnError) {
    try {
        read_patches("--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n a\n-b\n+c\n");
        FAIL() << "a hunk missing a line was accepted";
    } catch (const DiffError& e) {
        EXPECT_STREQ(e.what(),
                     "line 3: hunk ends early: input ends with 1 old and 1 new lines missing");
    }
}

TEST(UnifiedDiff, GarbageInsideAHunkIsAnError) {
    EXPECT_THROW(read_patches("--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n a\n*b\n+c\n"), DiffError);
    EXPECT_THROW(read_patches("--- a/x.c\n+++ b/x.c\n@@ -1,x +1,2 @@\n a\n"), DiffError);
}

// A mail without a diff is a part with no files: the checker decides whether it is a cover
// letter (skipped) or bad input.
TEST(UnifiedDiff, AMailWithoutADiffHasNoFiles) {
    auto patches = read_patches("Subject: [PATCH v2 00/12] foo: cleanups\n\nno diff here\n");
    ASSERT_EQ(patches.size(), 1u);
    EXPECT_TRUE(patches[0].files.empty());
    EXPECT_TRUE(is_cover_letter_subject(patches[0].subject));
    EXPECT_TRUE(is_cover_letter_subject("[RFC PATCH 0/3] x"));
    EXPECT_FALSE(is_cover_letter_subject("[PATCH 1/3] x"));
    EXPECT_FALSE(is_cover_letter_subject("[PATCH] fix 0/3 cases"));
}

TEST(UnifiedDiff, CopiesKeepTheirSource) {
    auto patches = read_patches("diff --git a/x.c b/y.c\nsimilarity index 90%\ncopy from x.c\n"
                                "copy to y.c\n--- a/x.c\n+++ b/y.c\n@@ -1 +1 @@\n-a\n+b\n");
    ASSERT_EQ(patches[0].files.size(), 1u);
    EXPECT_TRUE(patches[0].files[0].copy);
    EXPECT_EQ(patches[0].files[0].old_path, "x.c");
    EXPECT_EQ(patches[0].files[0].new_path, "y.c");
}

TEST(UnifiedDiff, EmptyContextLineWithoutItsSpace) {
    auto patches = read_patches("--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n");
    const auto& lines = patches.at(0).files.at(0).hunks.at(0).lines;
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[1].kind, ' ');
    EXPECT_EQ(lines[1].text, "");
}

// Every form of a path leaving the tree is bad input naming the line, before anything is read
// or written (issue 25: a patch wrote and removed files outside the tree).
TEST(UnifiedDiff, PathsLeavingTheTreeAreRefusedNamingTheLine) {
    EXPECT_EQ(testing::diff_error("Subject: [PATCH] x\n\n---\n"
                                  "diff --git a/../../../../home/ci/x/escaped.h "
                                  "b/../../../../home/ci/x/escaped.h\nnew file mode 100644\n"),
              "line 4: path ../../../../home/ci/x/escaped.h: a '..' component leaves the tree");
    EXPECT_NE(
        testing::diff_error("--- a//home/ci/.bashrc\n+++ b//home/ci/.bashrc\n@@ -1 +1 @@\n-a\n+b\n")
            .find("line 1: path /home/ci/.bashrc: an absolute path"),
        std::string::npos);
    EXPECT_NE(
        testing::diff_error("--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+x\n")
            .find("line 2: path .git/hooks/post-checkout: a '.git' component"),
        std::string::npos);
    EXPECT_NE(testing::diff_error("diff --git a/x.c b/y.c\nsimilarity index 100%\nrename from x.c\n"
                                  "rename to ../y.c\n")
                  .find("line 4: path ../y.c: a '..' component"),
              std::string::npos);
    EXPECT_NE(
        testing::diff_error("diff --git a/x.c b/y.c\ncopy from ../../etc/passwd\ncopy to y.c\n")
            .find("line 2: path ../../etc/passwd"),
        std::string::npos);
    EXPECT_NE(testing::diff_error("diff --git \"a/x\\001.c\" \"b/x\\001.c\"\n")
                  .find("line 1: path \"x\\001.c\": a NUL or control byte"),
              std::string::npos);
}

TEST(UnifiedDiff, SymlinkAndGitlinkModesAreRefusedSayingWhy) {
    EXPECT_EQ(testing::diff_error("diff --git a/include/evil b/include/evil\nnew file mode 120000\n"
                                  "--- /dev/null\n+++ b/include/evil\n@@ -0,0 +1 @@\n+/home/ci\n"),
              "line 2: path include/evil: a symbolic link (mode 120000): ksweep check reads C "
              "files and has no use for a link, and a link it made could lead later paths out "
              "of the tree");
    EXPECT_NE(testing::diff_error("diff --git a/x.c b/x.c\nold mode 100644\nnew mode 120000\n")
                  .find("line 3: path x.c: a symbolic link"),
              std::string::npos);
    EXPECT_NE(testing::diff_error("diff --git a/lib/sub b/lib/sub\nindex 1111111..2222222 160000\n")
                  .find("line 2: path lib/sub: a gitlink (mode 160000"),
              std::string::npos);
    EXPECT_NE(
        testing::diff_error("diff --git a/l b/l\ndeleted file mode 120000\n").find("symbolic link"),
        std::string::npos);
}

TEST(UnifiedDiff, AnErrorInAMailboxNamesTheMessage) {
    std::string mbox = std::string(kGitPatch) + "\n" + kGitPatch;
    mbox.replace(mbox.rfind("b/drivers/foo/foo.c\nindex"), 19, "b/../foo/foo.c");
    EXPECT_EQ(
        testing::diff_error(mbox).rfind("message 2 (\"[PATCH] foo: wait for the chip to settle\"): "
                                        "line 35: path ../foo/foo.c: a '..' component",
                                        0),
        0u)
        << testing::diff_error(mbox);
}

// Bounded work on any input (issue 25): each of these ends in one clear error at once.
TEST(UnifiedDiff, HostileSizesEndInOneClearError) {
    EXPECT_EQ(testing::diff_error("--- a/x.c\n+++ b/x.c\n@@ -1,2147483648 +1,2147483648 @@\n a\n"),
              "line 3: hunk ends early: input ends with 2147483647 old and 2147483647 new "
              "lines missing");
    EXPECT_NE(testing::diff_error("--- a/x.c\n+++ b/x.c\n@@ -1,99999999999 +1 @@\n a\n")
                  .find("malformed hunk header"),
              std::string::npos);
    EXPECT_NE(
        testing::diff_error(std::string(kMaxInputBytes + 1, '\n')).find("larger than the 64 MiB"),
        std::string::npos);
    std::string many_lines = "--- a/x.c\n+++ b/x.c\n@@ -1,2000000 +1,2000000 @@\n";
    for (int i = 0; i < 1100000; ++i)
        many_lines += " \n";
    EXPECT_NE(testing::diff_error(many_lines).find("more than 1048576 hunk lines in one input"),
              std::string::npos);
    std::string many_mails;
    for (size_t i = 0; i <= kMaxMessages; ++i)
        many_mails += "From x Mon Dec  1 00:00:00 2026\nSubject: y\n\n";
    EXPECT_NE(testing::diff_error(many_mails).find("more than 10000 messages in one input"),
              std::string::npos);
}

TEST(UnifiedDiff, ALongLineAndDeepPathsAreRead) {
    const std::string line(10 << 20, 'x');
    auto patches = read_patches("--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+" + line + "\n");
    EXPECT_EQ(patches.at(0).files.at(0).hunks.at(0).lines.at(1).text.size(), line.size());
    std::string deep;
    for (int i = 0; i < 1000; ++i)
        deep += "d/";
    EXPECT_EQ(read_patches("--- /dev/null\n+++ b/" + deep + "x.h\n@@ -0,0 +1 @@\n+int x;\n")
                  .at(0)
                  .files.at(0)
                  .new_path,
              deep + "x.h");
}

} // namespace
} // namespace ksweep::check
