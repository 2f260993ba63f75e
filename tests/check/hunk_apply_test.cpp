// Applying hunks in memory: exact, with an offset, at file ends, and the errors that explain
// why a patch does not apply.
#include "check/hunk_apply.h"

#include <gtest/gtest.h>

namespace ksweep::check {
namespace {

FileDiff one_file(const std::string& patch) {
    return read_patches(patch).at(0).files.at(0);
}

TEST(HunkApply, ReplacesALineAndRecordsItAsAdded) {
    FileDiff diff = one_file("--- a/x.c\n+++ b/x.c\n@@ -2,3 +2,3 @@\n b\n-c\n+C\n d\n");
    PostImage post = apply_hunks(diff, "a\nb\nc\nd\ne\n");
    EXPECT_EQ(post.text, "a\nb\nC\nd\ne\n");
    ASSERT_EQ(post.added.size(), 1u);
    EXPECT_EQ(post.added.begin()->first, 3u);
    EXPECT_EQ(post.added.begin()->second->text, "C");
}

TEST(HunkApply, FindsAHunkThatMovedLikeGitApply) {
    FileDiff diff = one_file("--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,3 @@\n b\n+B\n c\n");
    PostImage post = apply_hunks(diff, "a\nb\nc\n"); // "b" is at line 2, not 1
    EXPECT_EQ(post.text, "a\nb\nB\nc\n");
    EXPECT_EQ(post.added.begin()->first, 3u);
}

TEST(HunkApply, NewFileAndAppendAtEnd) {
    FileDiff created = one_file("--- /dev/null\n+++ b/n.h\n@@ -0,0 +1,2 @@\n+one\n+two\n");
    EXPECT_EQ(apply_hunks(created, "").text, "one\ntwo\n");
    FileDiff appended = one_file("--- a/x.c\n+++ b/x.c\n@@ -2,0 +3 @@\n+c\n");
    EXPECT_EQ(apply_hunks(appended, "a\nb\n").text, "a\nb\nc\n");
}

TEST(HunkApply, KeepsAMissingFinalNewline) {
    FileDiff diff = one_file("--- a/x.c\n+++ b/x.c\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
                             "\\ No newline at end of file\n");
    EXPECT_EQ(apply_hunks(diff, "a\nb\n").text, "a\nc");
}

TEST(HunkApply, ContextThatIsNotInTheFileIsAnError) {
    FileDiff diff = one_file("--- a/x.c\n+++ b/x.c\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n");
    try {
        apply_hunks(diff, "a\nb\nX\nd\n");
        FAIL() << "a hunk whose old side is not in the file applied";
    } catch (const ApplyError& e) {
        EXPECT_STREQ(e.what(), "x.c: hunk #1 (patch line 3) does not apply: line 3 is 'X', the "
                               "patch expects 'c'");
    }
}

TEST(HunkApply, SecondHunkAppliesAfterTheFirst) {
    FileDiff diff = one_file("--- a/x.c\n+++ b/x.c\n@@ -1,1 +1,2 @@\n a\n+a2\n"
                             "@@ -3,1 +4,2 @@\n c\n+c2\n");
    PostImage post = apply_hunks(diff, "a\nb\nc\n");
    EXPECT_EQ(post.text, "a\na2\nb\nc\nc2\n");
    ASSERT_EQ(post.added.size(), 2u);
    EXPECT_EQ(post.added.rbegin()->first, 5u);
}

} // namespace
} // namespace ksweep::check
