// `ksweep check` on Debian's 6.1 tree with its matching headers, as a new user runs it: the
// cases issue 13 found passing, a build dir that cannot parse the tree, and a whole series
// written by `ksweep series` (cover letter included).
#include "check_tree_6_1.h"
#include "json_fields.h"
#include "require_env.h"
#include "shareable.h"
#include "test_repo.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

constexpr const char* kTisCore = "drivers/char/tpm/tpm_tis_core.c";

class CheckOnLinux61 : public ::testing::Test {
  protected:
    void SetUp() override {
        tree_ = ksweep::test::tree_6_1();
        if (tree_.empty() || !fs::exists(tree_ + "/" + kTisCore))
            KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
    }

    // A patch to tpm_tis_core.c that replaces the first `from` by `to`.
    std::string patch_replacing(const std::string& from, const std::string& to) {
        std::string original = ksweep::test::read_file(tree_ + "/" + kTisCore);
        size_t at = original.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        std::string patched = original;
        patched.replace(at, from.size(), to);
        fs::create_directories(dir_.path() + "/a/drivers/char/tpm");
        fs::create_directories(dir_.path() + "/b/drivers/char/tpm");
        ksweep::test::write_file(dir_.path() + "/a/" + kTisCore, original);
        ksweep::test::write_file(dir_.path() + "/b/" + kTisCore, patched);
        auto diff = run("cd " + quote(dir_.path()) + " && git diff --no-index --no-prefix a/" +
                            kTisCore + " b/" + kTisCore,
                        false);
        std::string path = dir_.path() + "/p.patch";
        ksweep::test::write_file(path, "From: A Developer <dev@example.com>\n"
                                       "Subject: [PATCH] tpm: tis: use msleep()\n\n"
                                       "Signed-off-by: A Developer <dev@example.com>\n---\n" +
                                           diff.output);
        return path;
    }

    ksweep::test::CommandResult check(const std::string& args) {
        return run(std::string(KSWEEP_BINARY) + " check --tree " + quote(tree_) + " " + args,
                   false);
    }

    ksweep::test::TempDir dir_;
    std::string tree_;
};

TEST_F(CheckOnLinux61, TpmMsleepOfAnEnumTurnedIntoMsleepIsReported) {
    auto r = check("--terse " + quote(patch_replacing("\t\ttpm_msleep(TPM_TIMEOUT);",
                                                      "\t\tmsleep(TPM_TIMEOUT);")));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("WARNING: msleep(TPM_TIMEOUT) < 20ms"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("TPM_TIMEOUT is 5 (enumerator at " +
                            ksweep::test::tpm_timeout_place(tree_) + ")"),
              std::string::npos)
        << r.output;
}

TEST_F(CheckOnLinux61, TpmMsleepOfALiteralTurnedIntoMsleepIsReported) {
    auto r = check("--terse " + quote(patch_replacing("\t\ttpm_msleep(1);", "\t\tmsleep(1);")));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("WARNING: msleep(1) < 20ms"), std::string::npos) << r.output;
}

// The 2017 regression as a patch (tests/historical/nuvoton_pre_v4_12.sh: usleep_range() back
// to msleep(), the macros back to milliseconds): every sleep it brings back is caught, through
// the macros it redefines, with what fix would write.
TEST_F(CheckOnLinux61, TheNuvotonRegressionOf2017AsAPatch) {
    const std::string driver = "drivers/char/tpm/tpm_i2c_nuvoton.c";
    fs::create_directories(dir_.path() + "/a/drivers/char/tpm");
    fs::create_directories(dir_.path() + "/b/drivers/char/tpm");
    fs::copy_file(tree_ + "/" + driver, dir_.path() + "/a/" + driver);
    ASSERT_EQ(run("bash " +
                  quote(std::string(KSWEEP_SOURCE_DIR) + "/tests/historical/nuvoton_pre_v4_12.sh") +
                  " " + quote(tree_ + "/" + driver) + " " + quote(dir_.path() + "/b/" + driver))
                  .status,
              0);
    auto diff = run("cd " + quote(dir_.path()) + " && git diff --no-index --no-prefix a/" + driver +
                        " b/" + driver,
                    false);
    ksweep::test::write_file(dir_.path() + "/p.patch",
                             "Subject: [PATCH] tpm: tpm_i2c_nuvoton: back to msleep()\n\n---\n" +
                                 diff.output);
    auto r = check("--format json " + quote(dir_.path() + "/p.patch"));
    EXPECT_EQ(r.status, 1) << r.output;
    const ksweep::Json parsed = ksweep::test::parse_json(r.output);
    ASSERT_TRUE(parsed.is_object()) << r.output;
    const ksweep::Json& warnings = parsed.at("inputs").front().at("warnings");
    ASSERT_EQ(warnings.size(), 4u) << r.output;
    for (const auto& o : warnings) {
        EXPECT_EQ(ksweep::test::json_string(o, "resolution"), "macro");
        EXPECT_NE(ksweep::test::json_string(o, "message").find("changed by this patch"),
                  std::string::npos);
        // Today's tree has tpm.h's tpm_msleep(): the gate advises what the subsystem writes.
        EXPECT_TRUE(ksweep::test::json_string(o.at("fix"), "how")
                        .starts_with("the tree's own tpm_msleep() (drivers/char/tpm/tpm.h:"))
            << r.output;
    }
}

// A build dir of the tree's version that cannot parse the tree (no generated headers): the
// enum has no value, and the gate says so and what would fix it instead of passing.
TEST_F(CheckOnLinux61, AnUnusableBuildDirIsAnUnresolvedCheckNotAPass) {
    ksweep::test::TempDir unusable;
    std::string makefile = ksweep::test::read_file(tree_ + "/Makefile");
    ksweep::test::write_file(unusable.path() + "/Makefile",
                             makefile.substr(0, makefile.find("EXTRAVERSION")));
    auto r =
        check("--show-types --build-dir " + quote(unusable.path()) + " " +
              quote(patch_replacing("\t\ttpm_msleep(TPM_TIMEOUT);", "\t\tmsleep(TPM_TIMEOUT);")));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("CHECK:MSLEEP_UNRESOLVED: msleep(TPM_TIMEOUT)"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("--build-dir"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1 checks"), std::string::npos) << r.output;
}

// Advice from the cause, on the real tree (issue 31): the build dir parses tpm_tis_core.c
// before the patch, so a patch that does not compile is told so, not sent to --build-dir; a
// name nothing defines is named. Every form of the output names no path of this machine.
TEST_F(CheckOnLinux61, APatchThatDoesNotCompileIsToldSoInEveryFormWithoutMachinePaths) {
    const std::string broken = patch_replacing(
        "\t\ttpm_msleep(TPM_TIMEOUT);", "\t\tundeclared_var = 1;\n\t\tmsleep(TPM_TIMEOUT_POLL);");
    auto text = check(quote(broken));
    EXPECT_EQ(text.status, 1) << text.output;
    EXPECT_NE(text.output.find(
                  "CHECK: msleep(TPM_TIMEOUT_POLL): TPM_TIMEOUT_POLL could not be "
                  "evaluated: the patch does not compile: " +
                  ksweep::test::place_in_tree(tree_, kTisCore, "\t\ttpm_msleep(TPM_TIMEOUT);") +
                  ": use of undeclared "
                  "identifier 'undeclared_var'"),
              std::string::npos)
        << text.output;
    EXPECT_EQ(text.output.find("--build-dir"), std::string::npos) << text.output;
    for (const char* format : {"json", "sarif"}) {
        auto r = check(std::string("--format ") + format + " " + quote(broken));
        EXPECT_EQ(r.status, 1) << r.output;
        ksweep::test::expect_shareable(r.output, tree_, format);
    }
    ksweep::test::expect_shareable(text.output, tree_, "text");
    // stderr's note too: the lines a bot mails back.
    auto notes = check(quote(broken) + " 2>&1 >/dev/null");
    EXPECT_NE(notes.output.find("calls through macros not checked: the patch does not compile"),
              std::string::npos)
        << notes.output;

    auto undefined = check(quote(
        patch_replacing("\t\ttpm_msleep(TPM_TIMEOUT);", "\t\tmsleep(TPM_NOWHERE_DEFINED_MS);")));
    EXPECT_EQ(undefined.status, 1) << undefined.output;
    EXPECT_NE(undefined.output.find("TPM_NOWHERE_DEFINED_MS is not defined in the tree (the "
                                    "headers drivers/char/tpm/tpm_tis_core.c includes) nor by "
                                    "the patch"),
              std::string::npos)
        << undefined.output;
    EXPECT_EQ(undefined.output.find("--build-dir"), std::string::npos) << undefined.output;
}

// A directory that is no build dir at all is bad input: exit 2 with what to give instead,
// never a verdict.
TEST_F(CheckOnLinux61, ADirectoryThatIsNoBuildDirIsRefused) {
    ksweep::test::TempDir empty;
    auto r =
        run(std::string(KSWEEP_BINARY) + " check --tree " + quote(tree_) + " --build-dir " +
                quote(empty.path()) + " " +
                quote(patch_replacing("\t\ttpm_msleep(TPM_TIMEOUT);", "\t\tmsleep(TPM_TIMEOUT);")),
            true);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("does not say which kernel it is for"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("WARNING"), std::string::npos) << r.output;
}

// What `ksweep series` writes, cover letter and all, is checked patch by patch: never exit 2.
TEST_F(CheckOnLinux61, ASeriesWrittenByKsweepSeries) {
    const std::string out = dir_.path() + "/series";
    // A fresh machine has no git identity: the sign-off is given.
    auto written = run(std::string(KSWEEP_BINARY) +
                       " series --signoff 'Test Maintainer <test@example.org>' -o " + quote(out) +
                       " " + quote(tree_) + " drivers/char/tpm");
    ASSERT_EQ(written.status, 0) << written.output;
    // The output holds the index and one folder per series: TPM's tree has one.
    const std::string series = ksweep::test::only_series_dir(out);
    ASSERT_FALSE(series.empty()) << written.output;
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(series))
        files += e.path().extension() == ".patch";
    ASSERT_GT(files, 1u);
    ASSERT_TRUE(fs::exists(series + "/0000-cover-letter.patch"));

    auto r = check("--format json " + quote(series));
    EXPECT_TRUE(r.status == 0 || r.status == 1) << r.status << r.output;
    const ksweep::Json parsed = ksweep::test::parse_json(r.output);
    ASSERT_TRUE(parsed.is_object()) << r.output;
    ASSERT_TRUE(parsed.contains("inputs")) << r.output;
    const ksweep::Json& inputs = parsed.at("inputs");
    ASSERT_EQ(inputs.size(), files);
    for (const auto& input : inputs) {
        auto name = ksweep::test::json_string(input, "input");
        int64_t expected = name.ends_with("0000-cover-letter.patch") ? 0 : 1;
        EXPECT_EQ(ksweep::test::json_integer(input, "patches"), expected) << name;
    }
    // The series removes small sleeps; it adds none.
    EXPECT_EQ(r.status, 0) << r.output;
}

} // namespace
