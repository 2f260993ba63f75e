// Reading patches: mailboxes, git and plain diffs, new/deleted/renamed files, and the damage
// that must be an error rather than a silent pass.
#include "check/unified_diff.h"

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

} // namespace
} // namespace ksweep::check
