#include "cli/tree_paths.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace {

using ksweep::cli::tree_relative_paths;
using Paths = std::vector<std::string>;

TEST(TreeRelativePaths, RelativePathsAreKeptAsGiven) {
    EXPECT_EQ(tree_relative_paths("/src/linux", {"drivers/char/tpm", "include/linux/delay.h"}),
              (Paths{"drivers/char/tpm", "include/linux/delay.h"}));
}

TEST(TreeRelativePaths, AbsolutePathInsideTheTreeBecomesTreeRelative) {
    EXPECT_EQ(tree_relative_paths("/src/linux", {"/src/linux/drivers/char/tpm/tpm_i2c_nuvoton.c"}),
              (Paths{"drivers/char/tpm/tpm_i2c_nuvoton.c"}));
}

// The tree may be given relative to the working directory; absolute PATHs still resolve.
TEST(TreeRelativePaths, RelativeTreeWithAbsolutePath) {
    const fs::path tree = fs::current_path() / "linux";
    EXPECT_EQ(tree_relative_paths("linux", {(tree / "drivers/i2c").string()}),
              (Paths{"drivers/i2c"}));
}

TEST(TreeRelativePaths, NoArgumentsNoPaths) {
    EXPECT_TRUE(tree_relative_paths("/src/linux", {}).empty());
}

} // namespace
