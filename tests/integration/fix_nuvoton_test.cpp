// The historical case: Debian 6.1's tpm_i2c_nuvoton.c turned back into its pre-v4.12 msleep()
// form by tests/historical/nuvoton_pre_v4_12.sh, then `ksweep fix` must do what upstream
// a233a0289cf9 did, and the result must build as a module against Debian's 6.1 headers.
#include "../series/test_repo.h"
#include "core/file_io.h"
#include "require_env.h"
#include "rewrite/macro_uses.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

namespace fs = std::filesystem;

namespace ksweep {
namespace {

const std::string kNuvoton = "drivers/char/tpm/tpm_i2c_nuvoton.c";

std::string read(const fs::path& p) {
    return read_file(p).value_or("");
}

using test::quote;
using test::run;

// KSWEEP_TREE_6_1 and KSWEEP_HEADERS from the environment or scripts/setup.sh's env file.
std::string kernel_setting(const std::string& name) {
    if (const char* v = std::getenv(name.c_str()))
        return v;
    const char* home = std::getenv("HOME");
    std::ifstream env(std::string(home ? home : "") + "/.cache/ksweep/env");
    for (std::string line; std::getline(env, line);)
        if (line.rfind(name + "=", 0) == 0)
            return line.substr(name.size() + 1);
    return "";
}

// The file's code as one line of tokens, comments dropped: layout and comments may differ
// from upstream, the code may not.
std::string code_tokens(const std::string& text) {
    std::string out;
    const FileIndex index(text);
    for (const FileToken& t : index.tokens())
        if (t.kind != FileToken::Comment)
            out += t.text + " ";
    return out;
}

class HistoricalNuvoton : public ::testing::Test {
  protected:
    void SetUp() override {
        src_ = kernel_setting("KSWEEP_TREE_6_1");
        headers_ = kernel_setting("KSWEEP_HEADERS");
        if (src_.empty() || !fs::exists(fs::path(src_) / kNuvoton) || !fs::is_directory(headers_))
            KSWEEP_SKIP_OR_FAIL("Debian's 6.1 source/headers are missing: run scripts/setup.sh");
        tree_ = work_.path() / "tree";
        // The smallest tree the fix needs: the version (top Makefile), tpm.h and the file.
        fs::create_directories(tree_ / "drivers/char/tpm");
        fs::copy_file(fs::path(src_) / "Makefile", tree_ / "Makefile");
        fs::copy_file(fs::path(src_) / "drivers/char/tpm/tpm.h", tree_ / "drivers/char/tpm/tpm.h");
        const test::CommandResult script =
            run(std::string(KSWEEP_SOURCE_DIR) + "/tests/historical/nuvoton_pre_v4_12.sh " +
                quote(src_ + "/" + kNuvoton) + " " + quote((tree_ / kNuvoton).string()));
        ASSERT_EQ(script.status, 0) << script.output;
        const std::string git = "git -C " + quote(tree_.string()) + " ";
        ASSERT_EQ(run(git + "init -q && " + git + "add -f . && " + git +
                      "-c user.name=t -c user.email=t@invalid commit -q -m base")
                      .status,
                  0);
    }
    // A replay of 2017: tpm_msleep() (v4.15) did not exist yet, hence --no-helpers.
    test::CommandResult ksweep(const std::string& args) {
        return run(std::string(KSWEEP_BINARY) + " fix --no-helpers " + args + " " +
                   quote(tree_.string()) + " drivers/char/tpm");
    }

    std::string src_, headers_;
    TempDir work_{"ksweep-nuvoton"};
    fs::path tree_;
};

TEST_F(HistoricalNuvoton, TheScriptGivesThePreV412Form) {
    const std::string old = read(tree_ / kNuvoton);
    EXPECT_NE(old.find("#define TPM_I2C_BUS_DELAY              1       /* msec */\n"),
              std::string::npos);
    EXPECT_NE(old.find("msecs_to_jiffies(TPM_I2C_RETRY_DELAY_LONG)"), std::string::npos);
    EXPECT_EQ(old.find("usleep_range"), std::string::npos);
    EXPECT_EQ(old.find("TPM_I2C_DELAY_RANGE"), std::string::npos);
    const std::regex sleep(R"(msleep\(TPM_I2C_(BUS_DELAY|RETRY_DELAY_SHORT|RETRY_DELAY_LONG)\))");
    EXPECT_EQ(
        std::distance(std::sregex_iterator(old.begin(), old.end(), sleep), std::sregex_iterator()),
        4);
}

TEST_F(HistoricalNuvoton, FixDoesWhatUpstreamA233a0289cf9DidAndTheModuleBuilds) {
    const test::CommandResult fix = ksweep("--in-place");
    ASSERT_EQ(fix.status, 0) << fix.output;
    const std::string fixed = read(tree_ / kNuvoton);

    // Four usleep_range sites, no msleep left.
    const std::regex site(
        R"(usleep_range\((TPM_I2C_\w+),\s+(TPM_I2C_\w+) \+\s+TPM_I2C_DELAY_RANGE\))");
    int sites = 0;
    for (std::sregex_iterator it(fixed.begin(), fixed.end(), site), end; it != end; ++it, ++sites)
        EXPECT_EQ((*it)[1], (*it)[2]);
    EXPECT_EQ(sites, 4);
    EXPECT_EQ(fixed.find("msleep("), std::string::npos);
    // The delay macros in µs, parenthesised where they are expressions; one named slack
    // constant of 300 µs; usecs_to_jiffies in wait_for_stat.
    EXPECT_TRUE(
        std::regex_search(fixed, std::regex(R"(#define TPM_I2C_BUS_DELAY +1000 +/\* usec \*/)")));
    EXPECT_TRUE(std::regex_search(
        fixed, std::regex(R"(#define TPM_I2C_RETRY_DELAY_SHORT +\(2 \* 1000\) +/\* usec \*/)")));
    EXPECT_TRUE(std::regex_search(
        fixed, std::regex(R"(#define TPM_I2C_RETRY_DELAY_LONG +\(10 \* 1000\) +/\* usec \*/)")));
    EXPECT_TRUE(std::regex_search(fixed, std::regex(R"(#define TPM_I2C_DELAY_RANGE +300 )")));
    EXPECT_EQ(fixed.find("#define TPM_I2C_DELAY_RANGE"),
              fixed.rfind("#define TPM_I2C_DELAY_RANGE"));
    EXPECT_NE(fixed.find("ten_msec = jiffies + usecs_to_jiffies(TPM_I2C_RETRY_DELAY_LONG);"),
              std::string::npos);

    // Token for token the code upstream has in 6.1, but for the "if (status < 0)" guard a
    // later commit added before the first sleep.
    std::string upstream = code_tokens(read(fs::path(src_) / kNuvoton));
    const std::string guard = "if ( status < 0 ) usleep_range ( TPM_I2C_BUS_DELAY";
    ASSERT_NE(upstream.find(guard), std::string::npos);
    upstream.replace(upstream.find(guard), guard.size(), "usleep_range ( TPM_I2C_BUS_DELAY");
    EXPECT_EQ(code_tokens(fixed), upstream);

    // A second fix changes nothing.
    const test::CommandResult again = ksweep("");
    EXPECT_EQ(again.status, 0);
    EXPECT_EQ(again.output.find("diff --git"), std::string::npos) << again.output;

    // It builds as a module against Debian's 6.1 headers (REFERENCE §3).
    const fs::path module = work_.path() / "module";
    fs::create_directories(module);
    fs::copy_file(tree_ / kNuvoton, module / "tpm_i2c_nuvoton.c");
    fs::copy_file(tree_ / "drivers/char/tpm/tpm.h", module / "tpm.h");
    std::ofstream(module / "Kbuild") << "obj-m := tpm_i2c_nuvoton.o\n";
    const test::CommandResult build =
        run("make -s -C " + quote(headers_) + " M=" + quote(module.string()) + " modules");
    EXPECT_EQ(build.status, 0) << build.output;
    EXPECT_TRUE(fs::exists(module / "tpm_i2c_nuvoton.ko"));
}

TEST_F(HistoricalNuvoton, InPlaceRefusesUncommittedFilesAndTreesOutsideGit) {
    const std::string before = read(tree_ / kNuvoton);
    std::ofstream(tree_ / kNuvoton, std::ios::app) << "/* local change */\n";
    const test::CommandResult dirty = ksweep("--in-place");
    EXPECT_EQ(dirty.status, 2);
    EXPECT_NE(dirty.output.find("uncommitted"), std::string::npos) << dirty.output;
    EXPECT_EQ(read(tree_ / kNuvoton), before + "/* local change */\n");

    fs::remove_all(tree_ / ".git");
    const test::CommandResult no_git = ksweep("--in-place");
    EXPECT_EQ(no_git.status, 2);
    EXPECT_NE(no_git.output.find("not in a git work tree"), std::string::npos) << no_git.output;
    EXPECT_EQ(read(tree_ / kNuvoton), before + "/* local change */\n");

    const test::CommandResult forced = ksweep("--in-place --force");
    EXPECT_EQ(forced.status, 0) << forced.output;
    EXPECT_NE(read(tree_ / kNuvoton).find("usleep_range"), std::string::npos);
}

} // namespace
} // namespace ksweep
