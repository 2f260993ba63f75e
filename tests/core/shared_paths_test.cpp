#include "core/cache_dir.h"
#include "core/data_dir.h"
#include "core/file_io.h"
#include "core/shared_paths.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace ksweep {
namespace {

TEST(SharedPaths, TheTreeBecomesRelativeTheCacheAVariable) {
    TempDir dir("ksweep-shared-paths");
    const std::string tree = (dir.path() / "linux").string();
    fs::create_directories(tree);
    EXPECT_EQ(shareable_text(tree + "/drivers/char/tpm/tpm.h:40: error", tree),
              "drivers/char/tpm/tpm.h:40: error");
    EXPECT_EQ(shareable_text("see " + cache_dir() + "/builds/x/prepare.log", ""),
              "see $KSWEEP_CACHE/builds/x/prepare.log");
    EXPECT_EQ(shareable_path(data_file("rules/subject_prefixes.yaml")),
              "rules/subject_prefixes.yaml");
    EXPECT_EQ(shareable_path(tree, tree), ".");
    EXPECT_EQ(shareable_path("/usr/src/linux-headers-6.1", tree), "/usr/src/linux-headers-6.1");
}

// "." is the working directory: "/cwd/./" never matched a compiler's "/cwd/x.c".
TEST(SharedPaths, ARelativeRootIsTheWorkingDirectory) {
    const std::string cwd = fs::current_path().string();
    EXPECT_EQ(without_roots(cwd + "/drivers/x.c:3: error", {"."}), "drivers/x.c:3: error");
    EXPECT_EQ(with_roots(cwd + "/out/report.md", {{cwd + "/out", ""}, {".", "../"}}), "report.md");
    EXPECT_EQ(tree_name("."), fs::current_path().filename().string());
    EXPECT_EQ(tree_name("/src/linux/"), "linux");
}

} // namespace
} // namespace ksweep
