// `ksweep fix` end to end on a small tree of our fixtures, with the real scanner: the diff it
// prints applies and gives exactly the expected texts, --in-place writes the same, a second
// run prints nothing, and bad input exits 2 without touching anything.
#include "../series/test_repo.h"
#include "core/file_io.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace ksweep {
namespace {

// The commands here redirect stderr themselves.
test::CommandResult run(const std::string& cmd) {
    return test::run(cmd, false);
}

const char* kFixtures[] = {"literal", "macro_usec", "macro_scaled", "quux_body"};

std::string read(const fs::path& p) {
    return read_file(p).value_or("");
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
                      .status,
                  0);
    }
    test::CommandResult ksweep(const std::string& args) {
        return run(std::string(KSWEEP_BINARY) + " fix --lexical-only " + args + " 2>/dev/null");
    }
    std::string expected(const char* f) {
        return read(fs::path(KSWEEP_FIXTURES) / "fix" / (std::string(f) + ".expected.c"));
    }

    TempDir dir_{"ksweep-fixcli"};
    const fs::path tree_ = dir_.path();
};

TEST_F(FixCli, TheDiffAppliesAndGivesTheExpectedTexts) {
    const test::CommandResult diff = ksweep("'" + tree_.string() + "'");
    ASSERT_EQ(diff.status, 0);
    for (const char* f : kFixtures) // the tree is untouched without --in-place
        EXPECT_EQ(read(tree_ / "drivers/misc" / (std::string(f) + ".c")),
                  read(fs::path(KSWEEP_FIXTURES) / "fix" / (std::string(f) + ".c")));
    const fs::path patch = tree_ / "fix.diff";
    std::ofstream(patch) << diff.output;
    ASSERT_EQ(run("git -C '" + tree_.string() + "' apply '" + patch.string() + "'").status, 0)
        << diff.output;
    for (const char* f : kFixtures)
        EXPECT_EQ(read(tree_ / "drivers/misc" / (std::string(f) + ".c")), expected(f)) << f;
}

TEST_F(FixCli, InPlaceWritesTheSameAndASecondRunChangesNothing) {
    ASSERT_EQ(ksweep("--in-place '" + tree_.string() + "' drivers/misc").status, 0);
    for (const char* f : kFixtures)
        EXPECT_EQ(read(tree_ / "drivers/misc" / (std::string(f) + ".c")), expected(f)) << f;
    const test::CommandResult again = ksweep("'" + tree_.string() + "'");
    EXPECT_EQ(again.status, 0);
    EXPECT_EQ(again.output, "");
}

TEST_F(FixCli, BadInputExitsTwo) {
    EXPECT_EQ(ksweep("/nonexistent/tree").status, 2);
    EXPECT_EQ(ksweep("'" + tree_.string() + "' drivers/nothing-here").status, 2);
    EXPECT_EQ(ksweep("--rule /nonexistent.yaml '" + tree_.string() + "'").status, 2);
    EXPECT_EQ(ksweep("").status, 2); // no TREE
}

// Paths on the command line that leave the tree are refused before anything is read: fix once
// diffed ../outside/foo.c and, with --in-place --force, rewrote it (issue 31).
TEST_F(FixCli, APathOutsideTheTreeIsRefusedAndNothingIsWritten) {
    const fs::path outside = dir_.path().parent_path() / (dir_.path().filename().string() + "-out");
    fs::create_directories(outside);
    const std::string text = read(fs::path(KSWEEP_FIXTURES) / "fix/literal.c");
    std::ofstream(outside / "foo.c") << text;
    const std::string rel = "../" + outside.filename().string() + "/foo.c";
    for (const std::string& args :
         {"'" + tree_.string() + "' " + rel, "--in-place --force '" + tree_.string() + "' " + rel,
          "'" + tree_.string() + "' '" + (outside / "foo.c").string() + "'"}) {
        const test::CommandResult r =
            run(std::string(KSWEEP_BINARY) + " fix --lexical-only " + args + " 2>&1");
        EXPECT_EQ(r.status, 2) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("is outside the tree"), std::string::npos) << r.output;
        EXPECT_EQ(r.output.find("---"), std::string::npos) << "a diff of it: " << r.output;
    }
    EXPECT_EQ(read(outside / "foo.c"), text);
    fs::remove_all(outside);
}

TEST_F(FixCli, AFileThatIsNotCAndASubdirectoryAsTreeAreBadUsage) {
    std::ofstream(tree_ / "drivers/misc/Kconfig") << "config MISC_FOO\n";
    auto kconfig =
        run(std::string(KSWEEP_BINARY) + " fix '" + tree_.string() + "' drivers/misc/Kconfig 2>&1");
    EXPECT_EQ(kconfig.status, 2) << kconfig.output;
    EXPECT_NE(kconfig.output.find("drivers/misc/Kconfig: not a C file"), std::string::npos)
        << kconfig.output;
    auto sub =
        run(std::string(KSWEEP_BINARY) + " fix '" + (tree_ / "drivers/misc").string() + "' 2>&1");
    EXPECT_EQ(sub.status, 2) << sub.output;
    EXPECT_NE(sub.output.find("did you mean 'ksweep fix " + tree_.string() + " drivers/misc'?"),
              std::string::npos)
        << sub.output;
}

// One stderr line per target the fix wrote, with why (issue 31: stderr said usleep_range while
// the diff wrote tpm_msleep()).
TEST_F(FixCli, StderrSaysEachTargetItWrites) {
    auto r = run(std::string(KSWEEP_BINARY) + " fix --lexical-only '" + tree_.string() +
                 "' drivers/misc 2>&1 >/dev/null");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("ksweep fix: usleep_range() for "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("ksweep fix: usleep_range() for 10 sites in 4 files: target auto: "
                            "usleep_range ("),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("ksweep fix: target auto"), std::string::npos)
        << "the target is said with its sites, once: " << r.output;
}

} // namespace
} // namespace ksweep
