// `ksweep check` beside the real scripts/checkpatch.pl of Debian's 6.1 tree, on one patch to
// drivers/char/tpm/tpm_i2c_nuvoton.c that adds msleep(3) (checkpatch's MSLEEP sees it) and
// msleep(TPM_TIMEOUT) (an enum in tpm.h: only ksweep sees it). Where both warn, the location
// form, the prefix shape and the summary must be checkpatch's, in each output mode.
#include "check_tree_6_1.h"
#include "require_env.h"
#include "test_repo.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

constexpr const char* kDriver = "drivers/char/tpm/tpm_i2c_nuvoton.c";

class CheckpatchCompare : public ::testing::Test {
  protected:
    void SetUp() override {
        tree_ = ksweep::test::tree_6_1();
        if (tree_.empty() || !fs::exists(tree_ + "/scripts/checkpatch.pl"))
            KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
        // The patch: two calls after the declarations of i2c_nuvoton_write_status().
        std::string original = ksweep::test::read_file(tree_ + "/" + kDriver);
        std::string anchor = "{\n\ts32 status;\n\tint i;\n\n";
        size_t at = original.find(anchor);
        ASSERT_NE(at, std::string::npos) << "tpm_i2c_nuvoton.c changed";
        std::string patched = original;
        patched.insert(at + anchor.size(), "\tmsleep(3);\n\tmsleep(TPM_TIMEOUT);\n");
        fs::create_directories(dir_.path() + "/a/drivers/char/tpm");
        fs::create_directories(dir_.path() + "/b/drivers/char/tpm");
        ksweep::test::write_file(dir_.path() + "/a/" + kDriver, original);
        ksweep::test::write_file(dir_.path() + "/b/" + kDriver, patched);
        auto diff = run("cd " + quote(dir_.path()) + " && git diff --no-index --no-prefix a/" +
                            kDriver + " b/" + kDriver,
                        false);
        patch_ = dir_.path() + "/p.patch";
        ksweep::test::write_file(patch_,
                                 "From: A Developer <dev@example.com>\n"
                                 "Subject: [PATCH] tpm: tpm_i2c_nuvoton: wait before a status "
                                 "write\n\nThe chip needs time before a status write.\n\n"
                                 "Signed-off-by: A Developer <dev@example.com>\n---\n" +
                                     diff.output);
    }

    std::string checkpatch(const std::string& flags) {
        return run("cd " + quote(dir_.path()) + " && " + quote(tree_ + "/scripts/checkpatch.pl") +
                       " --root=" + quote(tree_) + " " + flags + " p.patch",
                   false)
            .output;
    }

    ksweep::test::CommandResult ksweep(const std::string& flags) {
        return run("cd " + quote(dir_.path()) + " && " + std::string(KSWEEP_BINARY) +
                       " check --tree " + quote(tree_) + " " + flags + " p.patch",
                   false);
    }

    // The lines of `text` that mention `needle`, and the line after each.
    static std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
        std::vector<std::string> lines, out;
        std::istringstream in(text);
        for (std::string l; std::getline(in, l);)
            lines.push_back(l);
        for (size_t i = 0; i < lines.size(); ++i)
            if (lines[i].find(needle) != std::string::npos) {
                out.push_back(lines[i]);
                if (i + 1 < lines.size())
                    out.push_back(lines[i + 1]);
            }
        return out;
    }

    static std::string summary(const std::string& text) {
        std::smatch m;
        std::regex total("total: \\d+ errors, \\d+ warnings, (\\d+) lines checked");
        return std::regex_search(text, m, total) ? m[1].str() : "none";
    }

    ksweep::test::TempDir dir_;
    std::string tree_, patch_;
};

TEST_F(CheckpatchCompare, DefaultForm) {
    std::string theirs = checkpatch("");
    auto ours = ksweep("");
    EXPECT_EQ(ours.status, 1);
    // checkpatch: "WARNING: msleep < 20ms ..." then "#N: FILE: path:line:" then "+line".
    auto their_warning = lines_with(theirs, "WARNING: msleep < 20ms");
    auto our_warning = lines_with(ours.output, "WARNING: msleep(3) < 20ms");
    ASSERT_EQ(their_warning.size(), 2u) << theirs;
    ASSERT_EQ(our_warning.size(), 2u) << ours.output;
    EXPECT_EQ(our_warning[1], their_warning[1]); // "#N: FILE: drivers/...:LINE:"
    EXPECT_EQ(lines_with(ours.output, our_warning[1])[1], lines_with(theirs, their_warning[1])[1]);
    EXPECT_EQ(summary(ours.output), summary(theirs));
    // Only ksweep sees the enum.
    EXPECT_EQ(theirs.find("TPM_TIMEOUT"), std::string::npos);
    // ... and says what the subsystem itself writes: tpm.h's tpm_msleep().
    EXPECT_NE(ours.output.find("WARNING: msleep(TPM_TIMEOUT) < 20ms can sleep for up to 16ms at "
                               "HZ=250: TPM_TIMEOUT is 5 (enumerator at " +
                               ksweep::test::tpm_timeout_place(tree_) +
                               "); use tpm_msleep(TPM_TIMEOUT); see "
                               "Documentation/timers/timers-howto.rst"),
              std::string::npos)
        << ours.output;
}

TEST_F(CheckpatchCompare, TerseShowfileAndShowTypes) {
    for (std::string flags : {"--terse", "--showfile", "--terse --showfile", "--show-types",
                              "--terse --no-summary --mailback --showfile"}) {
        std::string theirs = checkpatch(flags);
        auto ours = ksweep(flags);
        std::regex shape("^(.*)WARNING(:MSLEEP)?: msleep");
        std::smatch their_m, our_m;
        auto their_line = lines_with(theirs, "msleep < 20ms");
        auto our_line = lines_with(ours.output, "msleep(3) < 20ms");
        ASSERT_FALSE(their_line.empty()) << flags << "\n" << theirs;
        ASSERT_FALSE(our_line.empty()) << flags << "\n" << ours.output;
        ASSERT_TRUE(std::regex_search(their_line[0], their_m, shape)) << their_line[0];
        ASSERT_TRUE(std::regex_search(our_line[0], our_m, shape)) << our_line[0];
        EXPECT_EQ(our_m[1].str(), their_m[1].str()) << flags; // "p.patch:N: ", "FILE:LINE: ", ""
        EXPECT_EQ(our_m[2].str(), their_m[2].str()) << flags; // ":MSLEEP" with --show-types
        EXPECT_EQ(summary(ours.output), summary(theirs)) << flags;
    }
}

} // namespace
