#include "cli/tree_paths.h"
#include "core/file_io.h"
#include "test_files.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

using ksweep::cli::require_tree_top;
using ksweep::cli::tree_relative_paths;
using ksweep::cli::UsageError;
using Paths = std::vector<std::string>;

// A small kernel-shaped tree: a top Makefile that states VERSION, a driver and its Kconfig.
class TreePaths : public ::testing::Test {
  protected:
    void SetUp() override {
        ksweep::test::write_file(tree_ + "/Makefile",
                                 "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n");
        ksweep::test::write_file(tree_ + "/drivers/char/tpm/tpm_tis.c", "int x;\n");
        ksweep::test::write_file(tree_ + "/drivers/char/tpm/Kconfig", "config TCG_TIS\n");
        ksweep::test::write_file(tree_ + "/include/linux/delay.h", "\n");
        ksweep::test::write_file(dir_.path() / "outside/foo.c", "int y;\n");
    }
    ksweep::TempDir dir_{"ksweep-tree-paths"};
    std::string tree_ = dir_.path().string() + "/linux";
};

TEST_F(TreePaths, RelativePathsAreTreeRelative) {
    EXPECT_EQ(tree_relative_paths(tree_, {"drivers/char/tpm", "include/linux/delay.h"}),
              (Paths{"drivers/char/tpm", "include/linux/delay.h"}));
}

TEST_F(TreePaths, AbsolutePathInsideTheTreeBecomesTreeRelative) {
    EXPECT_EQ(tree_relative_paths(tree_, {tree_ + "/drivers/char/tpm/tpm_tis.c"}),
              (Paths{"drivers/char/tpm/tpm_tis.c"}));
}

// The tree may be given relative to the working directory; absolute PATHs still resolve.
TEST_F(TreePaths, RelativeTreeWithAbsolutePath) {
    const fs::path cwd = fs::current_path();
    fs::current_path(dir_.path());
    EXPECT_EQ(tree_relative_paths("linux", {tree_ + "/drivers/char"}), (Paths{"drivers/char"}));
    fs::current_path(cwd);
}

TEST_F(TreePaths, NoArgumentsNoPaths) {
    EXPECT_TRUE(tree_relative_paths(tree_, {}).empty());
}

// `fix TREE ../outside/foo.c` once diffed, and with --force wrote, a file outside the tree.
TEST_F(TreePaths, APathThatLeavesTheTreeIsRefused) {
    for (const std::string& path :
         {std::string("../outside/foo.c"), dir_.path().string() + "/outside/foo.c",
          std::string("drivers/../../outside/foo.c")}) {
        try {
            tree_relative_paths(tree_, {path});
            ADD_FAILURE() << path << " accepted";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find("is outside the tree"), std::string::npos)
                << e.what();
        }
    }
}

TEST_F(TreePaths, ASymbolicLinkOutOfTheTreeIsRefused) {
    fs::create_directory_symlink(dir_.path() / "outside", tree_ + "/drivers/elsewhere");
    try {
        tree_relative_paths(tree_, {"drivers/elsewhere/foo.c"});
        ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("through a symbolic link"), std::string::npos)
            << e.what();
    }
}

TEST_F(TreePaths, AFileThatIsNotCIsRefused) {
    try {
        tree_relative_paths(tree_, {"drivers/char/tpm/Kconfig"});
        ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("drivers/char/tpm/Kconfig: not a C file"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(tree_relative_paths(tree_, {"drivers/char/tpm/no_such.c"}), UsageError);
}

TEST_F(TreePaths, ASubdirectoryGivenAsTreeGetsDidYouMean) {
    EXPECT_NO_THROW(require_tree_top("fix", tree_));
    try {
        require_tree_top("fix", tree_ + "/drivers/char/tpm");
        ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(
            std::string(e.what()).find("did you mean 'ksweep fix " + tree_ + " drivers/char/tpm'?"),
            std::string::npos)
            << e.what();
    }
    try {
        require_tree_top("scan", tree_ + "/drivers/char", {"tpm/tpm_tis.c"});
        ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean 'ksweep scan " + tree_ +
                                             " drivers/char/tpm/tpm_tis.c'?"),
                  std::string::npos)
            << e.what();
    }
    // check and validate take no PATH: the top alone is what the user meant.
    try {
        require_tree_top("check", tree_ + "/drivers/char/tpm", {}, false);
        ADD_FAILURE() << "accepted";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("did you mean 'ksweep check " + tree_ + "'?"),
                  std::string::npos)
            << e.what();
    }
    // Outside any kernel tree (a stand-in tree of the fixtures) nothing is suggested.
    EXPECT_NO_THROW(require_tree_top("fix", (dir_.path() / "outside").string()));
    EXPECT_THROW(require_tree_top("fix", tree_ + "/no_such_dir"), UsageError);
}

} // namespace
