// The one check of paths from outside: each refusal says why, a tree's own symbolic links are
// never gone through, a user's path must land in the tree, and a writer's target is under its
// root once links are resolved.
#include "core/file_io.h"
#include "core/tree_path.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep {
namespace {

std::string refusal(std::string_view path) {
    try {
        checked_tree_path(path);
    } catch (const TreePathError& e) {
        return e.what();
    }
    return "";
}

TEST(TreePath, PlainPathsPass) {
    EXPECT_EQ(checked_tree_path("drivers/char/tpm/tpm_tis_core.c"),
              "drivers/char/tpm/tpm_tis_core.c");
    EXPECT_EQ(checked_tree_path("Makefile"), "Makefile");
    EXPECT_EQ(checked_tree_path("a/.gitignore"), "a/.gitignore"); // not the .git directory
    EXPECT_EQ(checked_tree_path("a/..b/c..d"), "a/..b/c..d");
    EXPECT_EQ(checked_tree_path("dir with space/f\\x.c"), "dir with space/f\\x.c");
}

TEST(TreePath, EveryEscapeIsRefusedWithItsReason) {
    EXPECT_EQ(refusal("../../home/ci/x/escaped.h"),
              "path ../../home/ci/x/escaped.h: a '..' component leaves the tree");
    EXPECT_EQ(refusal("drivers/../../x.c"), "path drivers/../../x.c: a '..' component leaves "
                                            "the tree");
    EXPECT_EQ(refusal("drivers/.."), "path drivers/..: a '..' component leaves the tree");
    EXPECT_NE(refusal("/home/ci/.bashrc").find("an absolute path"), std::string::npos);
    EXPECT_NE(refusal(".git/hooks/pre-commit").find("a '.git' component"), std::string::npos);
    EXPECT_NE(refusal("sub/.GIT/config").find("a '.git' component"), std::string::npos);
    EXPECT_NE(refusal("sub/.git. /config").find("a '.git' component"), std::string::npos);
    EXPECT_NE(refusal("GIT~1/config").find("a '.git' component"), std::string::npos);
    EXPECT_NE(refusal("a/./b").find("a '.' component"), std::string::npos);
    EXPECT_NE(refusal("a//b").find("an empty component"), std::string::npos);
    EXPECT_NE(refusal("a/b/").find("an empty component"), std::string::npos);
    EXPECT_NE(refusal("").find("an empty path"), std::string::npos);
}

TEST(TreePath, ControlBytesAreRefusedAndPrintedQuoted) {
    using namespace std::string_literals;
    const std::string nul = "a/b\0c.h"s;
    EXPECT_EQ(refusal(nul), "path \"a/b\\000c.h\": a NUL or control byte: no file of a tree is "
                            "named so, and a terminal would act on it");
    EXPECT_NE(refusal("x\x1b[2Jy.c").find("\"x\\033[2Jy.c\""), std::string::npos);
    EXPECT_NE(refusal("x\ny.c").find("\"x\\ny.c\""), std::string::npos);
    EXPECT_EQ(printable_path("caf\xc3\xa9.c"), "\"caf\\303\\251.c\"");
}

TEST(TreePath, LengthsAreBoundedByWhatLinuxOpens) {
    std::string deep;
    for (int i = 0; i < 2100; ++i)
        deep += "d/";
    deep += "f.c";
    EXPECT_NE(refusal(deep).find("longer than 4095 bytes (PATH_MAX)"), std::string::npos);
    EXPECT_LT(refusal(deep).size(), 200u) << "the error quotes a prefix, not 4 KiB";
    EXPECT_NE(refusal(std::string(256, 'n')).find("NAME_MAX"), std::string::npos);
    EXPECT_EQ(checked_tree_path(std::string(255, 'n')), std::string(255, 'n'));
}

TEST(TreePath, ANameIsOneComponent) {
    EXPECT_EQ(checked_name("iio-2"), "iio-2");
    EXPECT_THROW(checked_name("iio/x"), TreePathError);
    EXPECT_THROW(checked_name(".."), TreePathError);
}

TEST(TreePath, FileModesOtherThanARegularFilesAreRefusedSayingWhy) {
    EXPECT_NO_THROW(check_file_mode("a.c", "100644"));
    EXPECT_NO_THROW(check_file_mode("a.sh", "100755"));
    try {
        check_file_mode("include/evil", "120000");
        FAIL();
    } catch (const TreePathError& e) {
        EXPECT_STREQ(e.what(), "path include/evil: a symbolic link (mode 120000): ksweep check "
                               "reads C files and has no use for a link, and a link it made "
                               "could lead later paths out of the tree");
    }
    try {
        check_file_mode("lib/sub", "160000");
        FAIL();
    } catch (const TreePathError& e) {
        EXPECT_NE(std::string(e.what()).find("a gitlink (mode 160000"), std::string::npos);
    }
    EXPECT_THROW(check_file_mode("d", "040000"), TreePathError);
}

class TreeOnDisk : public ::testing::Test {
  protected:
    void SetUp() override {
        fs::create_directories(tree_ / "drivers/foo");
        fs::create_directories(outside_);
        std::ofstream(tree_ / "drivers/foo/foo.c") << "int foo;\n";
        fs::create_directory_symlink(outside_, tree_ / "drivers/out");
        fs::create_symlink("foo.c", tree_ / "drivers/foo/link.c");
    }
    TempDir dir_{"tree-path-test"};
    fs::path tree_ = dir_.path() / "tree";
    fs::path outside_ = dir_.path() / "outside";
};

TEST_F(TreeOnDisk, APathThroughASymlinkOfTheTreeIsRefused) {
    EXPECT_EQ(path_in_tree(tree_, "drivers/foo/foo.c"), tree_ / "drivers/foo/foo.c");
    EXPECT_EQ(path_in_tree(tree_, "drivers/new/x.h"), tree_ / "drivers/new/x.h");
    try {
        path_in_tree(tree_, "drivers/out/escaped.h");
        FAIL() << "a path through a symlinked directory passed";
    } catch (const TreePathError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "path drivers/out/escaped.h: 'drivers/out' is a symbolic link in the tree, "
                  "which could lead anywhere: a patch may not reach through it");
    }
    EXPECT_THROW(path_in_tree(tree_, "drivers/foo/link.c"), TreePathError);
    EXPECT_THROW(path_in_tree(tree_, "../outside/x"), TreePathError);
}

TEST_F(TreeOnDisk, TheTreeRootItselfMayBeALink) {
    fs::create_directory_symlink(tree_, dir_.path() / "tree-link");
    EXPECT_NO_THROW(path_in_tree(dir_.path() / "tree-link", "drivers/foo/foo.c"));
}

TEST_F(TreeOnDisk, AUserPathMustLieInTheTree) {
    EXPECT_EQ(user_path_in_tree(tree_, "drivers/foo/foo.c", tree_), "drivers/foo/foo.c");
    EXPECT_EQ(user_path_in_tree(tree_, "foo.c", tree_ / "drivers/foo"), "drivers/foo/foo.c");
    EXPECT_EQ(user_path_in_tree(tree_, "../foo", tree_ / "drivers/foo"), "drivers/foo");
    EXPECT_EQ(user_path_in_tree(tree_, ".", tree_), "");
    EXPECT_EQ(user_path_in_tree(tree_, tree_ / "drivers", "/"), "drivers");
    EXPECT_EQ(user_path_in_tree(tree_, "drivers/new.c", tree_), "drivers/new.c"); // not yet there
    EXPECT_THROW(user_path_in_tree(tree_, "..", tree_), TreePathError);
    EXPECT_THROW(user_path_in_tree(tree_, outside_, tree_), TreePathError);
    EXPECT_THROW(user_path_in_tree(tree_, "drivers/out/x", tree_), TreePathError); // via a link
    fs::create_directory(tree_.string() + "-sibling"); // a prefix of the name, not a parent
    EXPECT_THROW(user_path_in_tree(tree_, tree_.string() + "-sibling/x", "/"), TreePathError);
}

TEST_F(TreeOnDisk, LiesUnderResolvesLinksOfTheDirectoryNotOfTheEntry) {
    EXPECT_TRUE(lies_under(tree_, tree_ / "drivers/foo/foo.c"));
    EXPECT_TRUE(lies_under(tree_, tree_ / "drivers/foo/link.c")); // the link itself is in it
    EXPECT_TRUE(lies_under(tree_, tree_ / "drivers/new/dir/x.c"));
    EXPECT_FALSE(lies_under(tree_, tree_ / "drivers/out/x.c"));
    EXPECT_FALSE(lies_under(tree_, tree_ / "../outside/x.c"));
    EXPECT_FALSE(lies_under(tree_, tree_ / "drivers/new/../../../x.c"));
    EXPECT_FALSE(lies_under(tree_, tree_ / "drivers/.."));
    EXPECT_FALSE(lies_under(tree_, "/etc/passwd"));
    EXPECT_FALSE(lies_under(tree_, tree_));
}

TEST(BoundedRead, StopsReadingPastTheLimit) {
    std::istringstream small("abc");
    EXPECT_EQ(read_at_most(small, 3), "abc");
    std::istringstream big(std::string(5 << 20, 'x'));
    EXPECT_THROW(read_at_most(big, 1 << 20), InputTooLarge);
    EXPECT_EQ(big.tellg(), std::streampos((1 << 20) + 1)) << "read no more than limit + 1";
}

} // namespace
} // namespace ksweep
