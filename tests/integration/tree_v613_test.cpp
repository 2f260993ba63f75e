// ksweep series on the v6.13-shaped tree that tests/trees/make_v613_tree.sh derives from
// Debian's 6.12 (hard links; v6.13's fsleep() and timers document): what the mails say about
// the kernel's sleep functions is read from the tree, not from its version. Apart from
// tree_6_12_test.cpp, which includes llvm/Support/JSON.h (clang-tidy 14 cannot parse it).
#include "../series/test_repo.h"
#include "check_tree_6_1.h"
#include "require_env.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

// The v6.13-shaped tree, made (or found in the cache) once per test.
class TreeV613Shaped : public ::testing::Test {
  protected:
    void SetUp() override {
        const std::string tree_ = ksweep::test::tree_6_12();
        if (tree_.empty() || !fs::exists(tree_ + "/include/linux/delay.h"))
            KSWEEP_SKIP_OR_FAIL("no 6.12 tree to derive the v6.13-shaped one from: run "
                                "scripts/setup.sh");
        auto made_tree = run(std::string(KSWEEP_SOURCE_DIR) + "/tests/trees/make_v613_tree.sh " +
                                 quote(tree_) + " 2>/dev/null",
                             false);
        ASSERT_EQ(made_tree.status, 0) << made_tree.output;
        v613 = made_tree.output.substr(0, made_tree.output.find('\n'));
    }
    std::string v613;
};

// The v6.13-shaped tree (tests/trees/make_v613_tree.sh: 6.12 with v6.13's fsleep() and
// timers document; its Makefile still says 6.12): the mails cite delay_sleep_functions.rst,
// never timers-howto.rst, and the run says what it read from the tree. The first run prepares
// that tree's own build dir (about a minute on 2 cores).
TEST_F(TreeV613Shaped, SeriesSpeaksItsWords) {
    ksweep::test::TempDir dir;
    std::string series = dir.path() + "/tpm";
    auto made = run(std::string(KSWEEP_BINARY) +
                        " series --signoff 'Test Maintainer <test@example.org>' -o " +
                        quote(series) + " " + quote(v613) + " drivers/char/tpm/st33zp24",
                    true); // with stderr: what was read from the tree is said there
    ASSERT_EQ(made.status, 0) << made.output;
    EXPECT_NE(made.output.find("ksweep series: tree: fsleep quarter-slack (include/linux/delay.h:"),
              std::string::npos)
        << made.output;
    EXPECT_NE(made.output.find("timers document Documentation/timers/delay_sleep_functions.rst"),
              std::string::npos)
        << made.output;
    int mails = 0;
    for (const auto& e : fs::recursive_directory_iterator(series)) {
        if (e.path().extension() != ".patch")
            continue;
        ++mails;
        std::string text =
            std::regex_replace(ksweep::test::read_file(e.path().string()), std::regex("\\s+"), " ");
        EXPECT_EQ(text.find("timers-howto"), std::string::npos) << e.path();
        EXPECT_NE(text.find("Documentation/timers/delay_sleep_functions.rst advises "
                            "usleep_range() where msleep() is not accurate enough"),
                  std::string::npos)
            << e.path();
    }
    EXPECT_GE(mails, 1) << made.output;
}

// `fix` with the default `target: auto` on the same tree: fsleep(), as its documentation asks,
// and the stderr line says which line of delay.h decided; drivers/char/tpm keeps tpm_msleep().
TEST_F(TreeV613Shaped, FixTargetAutoWritesFsleep) {
    auto fixed = run(std::string(KSWEEP_BINARY) + " fix --rule msleep_small " + quote(v613) +
                         " drivers/input/touchscreen/ads7846.c drivers/char/tpm/tpm_nsc.c",
                     true);
    ASSERT_EQ(fixed.status, 0) << fixed.output;
    // One line per target it wrote, with why (issue 31).
    EXPECT_NE(fixed.output.find("ksweep fix: fsleep() for 1 site in 1 file: target auto: fsleep "
                                "(fsleep() keeps 25 % slack at most (include/linux/delay.h:"),
              std::string::npos)
        << fixed.output;
    EXPECT_NE(fixed.output.find("ksweep fix: tpm_msleep() for 2 sites in 1 file: the subsystem's "
                                "own millisecond sleep (drivers/char/tpm/tpm.h:"),
              std::string::npos)
        << fixed.output;
    EXPECT_NE(fixed.output.find("+\tfsleep(TS_POLL_DELAY);"), std::string::npos) << fixed.output;
    EXPECT_EQ(fixed.output.find("usleep_range(TS_POLL_DELAY"), std::string::npos);
    EXPECT_NE(fixed.output.find("+\t\ttpm_msleep(TPM_TIMEOUT);"), std::string::npos)
        << fixed.output;
}

} // namespace
