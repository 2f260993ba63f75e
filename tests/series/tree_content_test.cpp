// Content keys (git/tree_content.h): the same files give the same key wherever they are and
// however they got there (a git checkout, a worktree, a plain copy); one changed byte, a new file
// or a deleted one gives another; files outside the selection do not count; a tree outside git is
// hashed once, then read from the memo.
#include "git/tree_content.h"
#include "test_repo.h"

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <thread>

namespace fs = std::filesystem;
using namespace ksweep::git;
using namespace ksweep::test;

namespace {

// include/ as a whole, and every Makefile anywhere: the shape of kbuild's prepare inputs.
FileSelection selection() {
    FileSelection s;
    s.dirs = {"include/"};
    s.named = [](std::string_view name) { return name == "Makefile"; };
    return s;
}

void write_tree(const std::string& dir) {
    write_file(dir + "/Makefile", "VERSION = 6\n");
    write_file(dir + "/include/linux/delay.h", "void msleep(unsigned int msecs);\n");
    write_file(dir + "/include/linux/tpm.h", "enum { TPM_TIMEOUT = 5 };\n");
    write_file(dir + "/drivers/char/tpm/Makefile", "obj-m += tpm.o\n");
    write_file(dir + "/drivers/char/tpm/tpm.c", "int x;\n");
}

struct Keys {
    TempDir dir;
    std::string cache = dir.path() + "/cache";

    std::string key(const std::string& tree) {
        return content_key(tree_content(tree, selection(), cache), "test");
    }
};

} // namespace

TEST(TreeContentTest, CopiesOfTheSameFilesHaveOneKeyWhateverTheirPathOrName) {
    Keys k;
    write_tree(k.dir.path() + "/linux");
    fs::create_directories(k.dir.path() + "/elsewhere");
    fs::copy(k.dir.path() + "/linux", k.dir.path() + "/elsewhere/another-name",
             fs::copy_options::recursive);
    EXPECT_EQ(k.key(k.dir.path() + "/linux"), k.key(k.dir.path() + "/elsewhere/another-name"));
}

TEST(TreeContentTest, ASelectedFileChangedAddedOrRemovedChangesTheKeyAnOtherFileDoesNot) {
    Keys k;
    const std::string tree = k.dir.path() + "/linux";
    write_tree(tree);
    const std::string clean = k.key(tree);
    write_file(tree + "/drivers/char/tpm/tpm.c", "int y;\n"); // a driver's source: not selected
    EXPECT_EQ(k.key(tree), clean);
    write_file(tree + "/include/linux/tpm.h", "enum { TPM_TIMEOUT = 4 };\n"); // same size
    const std::string edited = k.key(tree);
    EXPECT_NE(edited, clean);
    write_file(tree + "/include/linux/new.h", "\n");
    EXPECT_NE(k.key(tree), edited);
    fs::remove(tree + "/include/linux/new.h");
    fs::remove(tree + "/drivers/char/tpm/Makefile");
    EXPECT_NE(k.key(tree), edited);
}

TEST(TreeContentTest, ATreeOutsideGitIsHashedOnceThenReadFromTheMemo) {
    Keys k;
    const std::string tree = k.dir.path() + "/linux";
    write_tree(tree);
    // A file changed within the last two seconds is hashed again each time (its timestamps could
    // not tell a second change from the first): wait until the files are older.
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    const TreeContent first = tree_content(tree, selection(), k.cache);
    EXPECT_EQ(first.hashed, 4u) << first.how; // 2 headers, 2 Makefiles
    const TreeContent second = tree_content(tree, selection(), k.cache);
    EXPECT_EQ(second.hashed, 0u) << second.how;
    EXPECT_EQ(content_key(first, "t"), content_key(second, "t"));
    // An edit is seen although the memo knew the file: its size, times or inode changed.
    write_file(tree + "/include/linux/tpm.h", "enum { TPM_TIMEOUT = 4 };\n");
    const TreeContent third = tree_content(tree, selection(), k.cache);
    EXPECT_EQ(third.hashed, 1u) << third.how;
    EXPECT_NE(content_key(third, "t"), content_key(first, "t"));
}

TEST(TreeContentTest, GitCheckoutsWorktreesAndPlainCopiesOfOneCommitAgree) {
    Keys k;
    const std::string repo = k.dir.path() + "/repo";
    init_repo(repo);
    write_tree(repo);
    write_file(repo + "/.gitignore", "*.o\n");
    run_git(repo, "add -A");
    run_git(repo, "commit -q -m base");
    const std::string clean = k.key(repo);
    EXPECT_NE(tree_content(repo, selection(), k.cache).how.find("git HEAD"), std::string::npos);

    run_git(repo, "worktree add -q " + quote(k.dir.path() + "/worktree"));
    EXPECT_EQ(k.key(k.dir.path() + "/worktree"), clean);
    fs::copy(repo, k.dir.path() + "/plain", fs::copy_options::recursive);
    fs::remove_all(k.dir.path() + "/plain/.git");
    fs::remove(k.dir.path() + "/plain/.gitignore");
    EXPECT_EQ(k.key(k.dir.path() + "/plain"), clean);

    // What git status shows counts: an edit, a new file, a deleted one; an ignored one does not.
    write_file(repo + "/include/linux/tpm.o", "junk\n");
    EXPECT_EQ(k.key(repo), clean);
    write_file(repo + "/include/linux/tpm.h", "enum { TPM_TIMEOUT = 4 };\n");
    const std::string edited = k.key(repo);
    EXPECT_NE(edited, clean);
    write_file(k.dir.path() + "/plain/include/linux/tpm.h", "enum { TPM_TIMEOUT = 4 };\n");
    EXPECT_EQ(k.key(k.dir.path() + "/plain"), edited); // the same content, committed or not
    run_git(repo, "checkout -q -- include/linux/tpm.h");
    EXPECT_EQ(k.key(repo), clean);
    write_file(repo + "/include/linux/untracked.h", "\n");
    EXPECT_NE(k.key(repo), clean);
    fs::remove(repo + "/include/linux/untracked.h");
    fs::remove(repo + "/include/linux/delay.h");
    EXPECT_NE(k.key(repo), clean);
    run_git(repo, "checkout -q -- include/linux/delay.h");
    EXPECT_EQ(k.key(repo), clean);
}

TEST(TreeContentTest, ASubdirectoryOfARepositoryIsKeyedByItsOwnFiles) {
    Keys k;
    const std::string repo = k.dir.path() + "/repo";
    init_repo(repo);
    write_tree(repo + "/linux");
    write_file(repo + "/README", "not part of the tree\n");
    run_git(repo, "add -A");
    run_git(repo, "commit -q -m base");
    write_tree(k.dir.path() + "/copy");
    EXPECT_EQ(k.key(repo + "/linux"), k.key(k.dir.path() + "/copy"));
}
