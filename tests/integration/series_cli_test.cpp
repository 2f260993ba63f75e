// `ksweep series` as a user runs it on a small git fixture tree (C files and a MAINTAINERS
// written here): --plan prints the table and writes nothing; a run shows its progress as plain
// lines when stderr is not a terminal, and ends with the index's totals.
#include "../series/test_repo.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace ksweep::test;

namespace {

class SeriesCli : public ::testing::Test {
  protected:
    void SetUp() override {
        repo = tmp.path() + "/linux";
        init_repo(repo);
        write_file(repo + "/Makefile", "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n");
        write_file(
            repo + "/MAINTAINERS",
            "HWMON SUBSYSTEM\nM:\tGuenter Roeck <linux@roeck-us.net>\n"
            "L:\tlinux-hwmon@vger.kernel.org\n"
            "T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/groeck/linux-staging.git\n"
            "F:\tdrivers/hwmon/\n\n"
            "WATCHDOG DEVICE DRIVERS\nM:\tWim Van Sebroeck <wim@linux-watchdog.org>\n"
            "L:\tlinux-watchdog@vger.kernel.org\n"
            "T:\tgit git://www.linux-watchdog.org/linux-watchdog.git\n"
            "F:\tdrivers/watchdog/\n");
        for (const char* d : {"drivers/hwmon/lm99", "drivers/watchdog/wdt99"}) {
            std::string name = fs::path(d).filename().string();
            write_file(repo + "/" + d + ".c",
                       "// SPDX-License-Identifier: GPL-2.0\n#include <linux/delay.h>\n\n"
                       "static void " +
                           name + "_wait(void)\n{\n\tmsleep(3);\n}\n");
            write_file(repo + "/" + fs::path(d).parent_path().string() + "/Makefile",
                       "obj-y += " + name + ".o\n");
        }
        run_git(repo, "add -A");
        run_git(repo, "commit -q -m 'Import'");
    }
    CommandResult ksweep(const std::string& args) {
        return run(std::string(KSWEEP_BINARY) + " series --signoff 'T <t@example.org>' --cache " +
                       quote(tmp.path() + "/cache") + " " + args,
                   false);
    }
    TempDir tmp;
    std::string repo;
};

TEST_F(SeriesCli, PlanPrintsWhoGetsWhatAndWritesNothing) {
    std::string out = tmp.path() + "/out";
    auto r = ksweep("--plan -o " + quote(out) + " " + quote(repo));
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("| series | patch | files | entry | tree | recipients | prefix from |"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("| linux-watchdog | watchdog: wdt99: Use usleep_range() for short "
                            "sleeps | drivers/watchdog/wdt99.c | WATCHDOG DEVICE DRIVERS | git "
                            "git://www.linux-watchdog.org/linux-watchdog.git | Wim Van Sebroeck "
                            "<wim@linux-watchdog.org>, linux-watchdog@vger.kernel.org | "),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("2 series; 0 left alone. --plan writes nothing."), std::string::npos);
    EXPECT_FALSE(fs::exists(out));
    EXPECT_EQ(run_git(repo, "branch --list"), "* main\n");
}

TEST_F(SeriesCli, ARunInALogShowsProgressLinesAndTheTotals) {
    std::string out = tmp.path() + "/out";
    auto r = run(std::string(KSWEEP_BINARY) + " series --signoff 'T <t@example.org>' -o " +
                     quote(out) + " " + quote(repo) + " 2> " + quote(tmp.path() + "/err"),
                 false);
    ASSERT_EQ(r.status, 0) << r.output;
    std::string err = read_file(tmp.path() + "/err");
    EXPECT_NE(err.find("writing series: 2/2 (100%)\n"), std::string::npos) << err;
    EXPECT_NE(r.output.find("\n2 series, 2 patches; 0 left alone; index: " + out + "/index.json"),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(fs::exists(out + "/linux-staging/0001-hwmon-lm99-Use-usleep_range-for-short-"
                                 "sleeps.patch"));
}

// The default rules are fix's: both. Each is a sweep of its own (msleep_small in -o DIR,
// short_jiffy_sleeps in DIR/short_jiffy_sleeps/), and a file the first rule's series changes
// waits for a later run of the second, so no two series of the run touch one file.
TEST_F(SeriesCli, TheDefaultRulesAreASweepEachAndNeverShareAFile) {
    write_file(repo + "/drivers/hwmon/lm98.c",
               "// SPDX-License-Identifier: GPL-2.0\n#include <linux/delay.h>\n\n"
               "static void lm98_wait(void)\n{\n"
               "\tschedule_timeout_uninterruptible(msecs_to_jiffies(2));\n}\n");
    write_file(repo + "/drivers/watchdog/wdt99.c",
               "// SPDX-License-Identifier: GPL-2.0\n#include <linux/delay.h>\n\n"
               "static void wdt99_wait(void)\n{\n\tmsleep(3);\n"
               "\tschedule_timeout_uninterruptible(msecs_to_jiffies(2));\n}\n");
    write_file(repo + "/drivers/hwmon/Makefile", "obj-y += lm99.o lm98.o\n");
    run_git(repo, "add -A");
    run_git(repo, "commit -q -m 'More sleeps'");
    const std::string out = tmp.path() + "/out";
    // --signoff is git's flag: TREE after it is TREE, the identity git config's.
    auto r = run(std::string(KSWEEP_BINARY) + " series --cache " + quote(tmp.path() + "/cache") +
                     " -o " + quote(out) + " --signoff " + quote(repo) + " 2>" +
                     quote(tmp.path() + "/err"),
                 false);
    ASSERT_EQ(r.status, 0) << r.output << read_file(tmp.path() + "/err");
    const std::string err = read_file(tmp.path() + "/err");
    EXPECT_TRUE(fs::exists(out + "/index.json"));
    EXPECT_TRUE(fs::exists(out + "/short_jiffy_sleeps/index.json")) << r.output;
    EXPECT_TRUE(fs::exists(out + "/short_jiffy_sleeps/linux-staging/"
                                 "0001-hwmon-lm98-Use-usleep_range-for-short-jiffy-sleeps.patch"))
        << r.output;
    EXPECT_NE(err.find("short_jiffy_sleeps: left alone: drivers/watchdog/wdt99.c:7: the file is in "
                       "this run's msleep_small series; run ksweep series again once that "
                       "series is applied"),
              std::string::npos)
        << err;
    EXPECT_FALSE(fs::exists(out + "/short_jiffy_sleeps/linux-watchdog")) << r.output;
    const std::string mail =
        read_file(out + "/linux-staging/0001-hwmon-lm99-Use-usleep_range-for-short-sleeps.patch");
    EXPECT_NE(mail.find("Signed-off-by: Test Maintainer <test@example.org>"), std::string::npos)
        << mail;
    // And it ends with what to do next.
    EXPECT_NE(r.output.find("next: read the mails, prove each series, then send it"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("git send-email --dry-run " + out +
                            "/short_jiffy_sleeps/linux-staging/*.patch"),
              std::string::npos)
        << r.output;
}

} // namespace
