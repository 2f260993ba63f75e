// The shadow tree's belt and braces: handed paths the patch reader would have refused, it
// writes and removes nothing outside its root (issue 25: it created and deleted files outside
// the tree, and crashed on a path starting with '/').
#include "check/shadow_tree.h"
#include "core/file_io.h"
#include "core/tree_path.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>

namespace fs = std::filesystem;

namespace ksweep::check {
namespace {

std::set<std::string> everything_in(const fs::path& dir) {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        out.insert(e.path().string());
    return out;
}

class ShadowTreeEscapes : public ::testing::Test {
  protected:
    void SetUp() override {
        fs::create_directories(tree_ / "include/linux");
        fs::create_directories(tree_ / "drivers/foo");
        fs::create_directories(sentinel_);
        fs::create_directories(tmp_);
        std::ofstream(tree_ / "include/linux/tpm.h") << "#define TPM 1\n";
        std::ofstream(tree_ / "drivers/foo/foo.c") << "int foo;\n";
        std::ofstream(sentinel_ / "victim.c") << "keep me\n";
        fs::create_directory_symlink(sentinel_, tree_ / "drivers/out");
        // The shadow is made in $TMPDIR: put it where "../../sentinel" from it is sentinel_.
        old_tmpdir_ = std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "";
        setenv("TMPDIR", tmp_.c_str(), 1);
        before_ = everything_in(dir_.path());
    }
    void TearDown() override {
        if (old_tmpdir_.empty())
            unsetenv("TMPDIR");
        else
            setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    }

    void expect_refused(const std::map<std::string, std::optional<std::string>>& files) {
        EXPECT_THROW(ShadowTree(tree_.string(), files), TreePathError);
        EXPECT_EQ(read_file(sentinel_ / "victim.c"), "keep me\n");
        EXPECT_EQ(everything_in(dir_.path()), before_) << "nothing new, nothing removed";
    }

    TempDir dir_{"shadow-escape"};
    fs::path tree_ = dir_.path() / "t/tree";
    fs::path tmp_ = dir_.path() / "t";
    fs::path sentinel_ = dir_.path() / "sentinel";
    std::string old_tmpdir_;
    std::set<std::string> before_;
};

TEST_F(ShadowTreeEscapes, DotDotWritesAndRemovesNothingOutside) {
    expect_refused({{"include/linux/tpm.h", "#define TPM 2\n"},
                    {"../../sentinel/escaped.h", "pwned\n"},
                    {"../../sentinel/victim.c", std::nullopt}});
}

TEST_F(ShadowTreeEscapes, AnAbsolutePathNeitherCrashesNorWrites) {
    expect_refused({{"include/linux/tpm.h", "#define TPM 2\n"},
                    {(sentinel_ / "escaped.h").string(), "pwned\n"}});
    expect_refused({{"/", "x"}});
}

TEST_F(ShadowTreeEscapes, APathThroughASymlinkOfTheTreeWritesNothing) {
    expect_refused(
        {{"include/linux/tpm.h", "#define TPM 2\n"}, {"drivers/out/escaped.h", "pwned\n"}});
}

TEST_F(ShadowTreeEscapes, APlainPathIsWrittenInTheShadowOnly) {
    ShadowTree shadow(tree_.string(), {{"include/linux/tpm.h", "#define TPM 2\n"},
                                       {"drivers/foo/foo.c", std::nullopt},
                                       {"drivers/new/deep/x.h", "int x;\n"}});
    const fs::path root = shadow.root();
    EXPECT_EQ(read_file(root / "include/linux/tpm.h"), "#define TPM 2\n");
    EXPECT_FALSE(fs::exists(root / "drivers/foo/foo.c"));
    EXPECT_EQ(read_file(root / "drivers/new/deep/x.h"), "int x;\n");
    EXPECT_EQ(read_file(tree_ / "include/linux/tpm.h"), "#define TPM 1\n");
    EXPECT_TRUE(fs::exists(tree_ / "drivers/foo/foo.c"));
}

} // namespace
} // namespace ksweep::check
