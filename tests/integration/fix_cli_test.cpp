// `ksweep fix` end to end on a small tree of our fixtures, with the real scanner: the diff it
// prints applies and gives exactly the expected texts, --in-place writes the same, a second
// run prints nothing, and bad input exits 2 without touching anything.
#include "core/file_io.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace ksweep {
namespace {

const char* kFixtures[] = {"literal", "macro_usec", "macro_scaled", "quux_body"};

std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Command {
    int rc;
    std::string out;
};

Command run(const std::string& cmd) {
    Command r{-1, ""};
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
        r.out.append(buf, n);
    const int status = pclose(p);
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

class FixCli : public ::testing::Test {
  protected:
    void SetUp() override {
        fs::create_directories(tree_ / "drivers/misc");
        std::ofstream(tree_ / "Makefile") << "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n";
        const fs::path fixtures = fs::path(KSWEEP_FIXTURES) / "fix";
        for (const char* f : kFixtures)
            fs::copy_file(fixtures / (std::string(f) + ".c"),
                          tree_ / "drivers/misc" / (std::string(f) + ".c"));
        const std::string git = "git -C '" + tree_.string() + "' ";
        ASSERT_EQ(run(git + "init -q && " + git + "add . && " + git +
                      "-c user.name=t -c user.email=t@invalid commit -q -m base")
                      .rc,
                  0);
    }
    Command ksweep(const std::string& args) {
        return run(std::string(KSWEEP_BINARY) + " fix --lexical-only " + args + " 2>/dev/null");
    }
    std::string expected(const char* f) {
        return read(fs::path(KSWEEP_FIXTURES) / "fix" / (std::string(f) + ".expected.c"));
    }

    TempDir dir_{"ksweep-fixcli"};
    const fs::path tree_ = dir_.path();
};

TEST_F(FixCli, TheDiffAppliesAndGivesTheExpectedTexts) {
    const Command diff = ksweep("'" + tree_.string() + "'");
    ASSERT_EQ(diff.rc, 0);
    for (const char* f : kFixtures) // the tree is untouched without --in-place
        EXPECT_EQ(read(tree_ / "drivers/misc" / (std::string(f) + ".c")),
                  read(fs::path(KSWEEP_FIXTURES) / "fix" / (std::string(f) + ".c")));
    const fs::path patch = tree_ / "fix.diff";
    std::ofstream(patch) << diff.out;
    ASSERT_EQ(run("git -C '" + tree_.string() + "' apply '" + patch.string() + "'").rc, 0)
        << diff.out;
    for (const char* f : kFixtures)
        EXPECT_EQ(read(tree_ / "drivers/misc" / (std::string(f) + ".c")), expected(f)) << f;
}

TEST_F(FixCli, InPlaceWritesTheSameAndASecondRunChangesNothing) {
    ASSERT_EQ(ksweep("--in-place '" + tree_.string() + "' drivers/misc").rc, 0);
    for (const char* f : kFixtures)
        EXPECT_EQ(read(tree_ / "drivers/misc" / (std::string(f) + ".c")), expected(f)) << f;
    const Command again = ksweep("'" + tree_.string() + "'");
    EXPECT_EQ(again.rc, 0);
    EXPECT_EQ(again.out, "");
}

TEST_F(FixCli, BadInputExitsTwo) {
    EXPECT_EQ(ksweep("/nonexistent/tree").rc, 2);
    EXPECT_EQ(ksweep("'" + tree_.string() + "' drivers/nothing-here").rc, 2);
    EXPECT_EQ(ksweep("--rule /nonexistent.yaml '" + tree_.string() + "'").rc, 2);
    EXPECT_EQ(ksweep("").rc, 2); // no TREE
}

} // namespace
} // namespace ksweep
