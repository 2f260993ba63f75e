// Loops that give up after a number of tries, on Debian's 6.1 tree: ak8974's DRDY poll becomes
// read_poll_timeout() with a timeout no shorter than today's longest wait; sscape's codec polls
// keep their loops and the budget change is stated (or the sites are left, with the figures);
// the two PSP mailbox polls of sound/soc/sof/amd/acp.c, which upstream turned into
// read_poll_timeout() after 6.1, are refused with the exact reason on their 6.1 form and, once
// smn_read() returns its value (upstream's first step, made here on a hard-linked copy), the
// first becomes read_poll_timeout() as upstream wrote it; and over whole subsystems no sleep of a
// count-ended loop is rewritten without its budget in the mail.
#include "../series/test_repo.h"
#include "check_tree_6_1.h"
#include "core/file_io.h"
#include "core/json.h"
#include "require_env.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

const std::string kUpTo2s = std::string(KSWEEP_FIXTURES) + "/loops/rules/msleep_up_to_2s.yaml";

class Linux61Loops : public ::testing::Test {
  protected:
    void SetUp() override {
        tree_ = ksweep::test::tree_6_1();
        if (tree_.empty() || !fs::exists(tree_ + "/sound/soc/sof/amd/acp.c"))
            KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
    }
    // `ksweep fix OPTIONS TREE PATHS`, its stderr (where the loops are reported) with the diff.
    std::string fix(const std::string& options, const std::string& paths,
                    const std::string& tree = "") {
        auto r = run(std::string(KSWEEP_BINARY) + " fix " + options + " " +
                         quote(tree.empty() ? tree_ : tree) + " " + paths + " 2>&1",
                     false);
        EXPECT_EQ(r.status, 0) << r.output;
        return r.output;
    }
    std::string tree_;
};

TEST_F(Linux61Loops, Ak8974PollBecomesReadPollTimeoutThatNeverGivesUpSooner) {
    const std::string out = fix("--rule msleep_small", "drivers/iio/magnetometer/ak8974.c");
    // Two tries of msleep(3): 60, 24 and 10 ms at HZ 100, 250 and 1000 today; the poll's
    // timeout is the longest of them, so it never gives up sooner, whatever the HZ.
    EXPECT_NE(out.find("  loop iopoll drivers/iio/magnetometer/ak8974.c:355: "
                       "msleep(AK8974_MEASTIME): do loop of 2 tries -> read_poll_timeout(), "
                       "timeout 60000 us (the longest the loop waits today, at HZ=100); budget "
                       "24 ms -> 63 ms at HZ=250 (HZ=100: 60 -> 63, HZ=1000: 10 -> 63)"),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("-\tint timeout = 2;\n"), std::string::npos) << out;
    // It slept before it read and returned regmap_read()'s error as it was: so does the poll.
    EXPECT_NE(out.find("+\tif (!read_poll_timeout(regmap_read, ret,\n"
                       "+\t\t\t       ret || (val & AK8974_STATUS_DRDY),\n"
                       "+\t\t\t       AK8974_MEASTIME * USEC_PER_MSEC, 60000, true,\n"
                       "+\t\t\t       ak8974->map, AK8974_STATUS, &val))\n"
                       "+\t\treturn ret;\n"),
              std::string::npos)
        << out;
    // The timeout path after the loop is the driver's own, untouched.
    EXPECT_NE(out.find(" \tdev_err(&ak8974->i2c->dev, \"timeout waiting for DRDY\\n\");\n"
                       " \treturn -ETIMEDOUT;\n"),
              std::string::npos)
        << out;
}

TEST_F(Linux61Loops, SscapeKeepsItsLoopsAndSaysByHowMuchTheirBudgetFalls) {
    const std::string kept = fix("--rule msleep_small", "sound/isa/sscape.c");
    // 500 tries of msleep(1): 6 s at HZ=250 today, 500 x usleep_range(1000, 1250) after.
    EXPECT_NE(kept.find("  loop keep sound/isa/sscape.c:735: msleep(1): for loop of 500 tries; "
                        "budget 6000 ms -> 625 ms at HZ=250 (HZ=100: 15000 -> 625, HZ=1000: "
                        "1500 -> 625); read_poll_timeout() does not fit: its body does more than "
                        "read, test and sleep (line 736: spin_lock_irqsave(&s->lock, flags))"),
              std::string::npos)
        << kept;
    EXPECT_NE(kept.find("loops that give up after a count: 0 into an iopoll helper, 2 kept with "
                        "the budget stated, 0 left alone."),
              std::string::npos)
        << kept;

    const std::string left = fix("--rule msleep_small --loops leave", "sound/isa/sscape.c");
    EXPECT_NE(left.find("  left alone sound/isa/sscape.c:735: msleep(1): its loop gives up after "
                        "500 tries: the budget would fall from 6000 ms -> 625 ms at HZ=250 "
                        "(HZ=100: 15000 -> 625, HZ=1000: 1500 -> 625)"),
              std::string::npos)
        << left;
    EXPECT_EQ(left.find("-\t\tmsleep(1);"), std::string::npos) << left;
    // Its time-ended loops (obp_startup_ack, host_startup_ack) are fixed either way.
    EXPECT_NE(left.find("+\t\tusleep_range(10000, 10000 + "), std::string::npos) << left;
}

TEST_F(Linux61Loops, AcpPspPollsSayWhatStopsReadPollTimeoutUntilSmnReadReturnsItsValue) {
    const std::string as_61 = fix("--rule " + quote(kUpTo2s), "sound/soc/sof/amd/acp.c");
    const std::string refused = "read_poll_timeout() does not fit: smn_read() fills &data and "
                                "returns a status: read_poll_timeout() needs an op that returns "
                                "the value it reads";
    EXPECT_NE(as_61.find("  loop keep sound/soc/sof/amd/acp.c:157: msleep(20): for loop of 5 "
                         "tries; budget 140 ms -> 125 ms at HZ=250 (HZ=100: 200 -> 125, "
                         "HZ=1000: 110 -> 125); " +
                         refused),
              std::string::npos)
        << as_61;
    EXPECT_NE(as_61.find("  loop keep sound/soc/sof/amd/acp.c:188: msleep(MBOX_DELAY): for loop "
                         "of 5 tries;"),
              std::string::npos)
        << as_61;

    // Upstream's first step (later commit "use read_poll_timeout marco for PSP smn_read calls"
    // rests on it): smn_read() returns what it reads. Derived on a hard-linked copy; acp.c is
    // written anew, never through the link.
    ksweep::TempDir dir{"loops-acp"};
    const std::string copy = (dir.path() / "linux").string();
    ASSERT_EQ(run("cp -al " + quote(tree_) + " " + quote(copy), true).status, 0);
    const std::string acp = copy + "/sound/soc/sof/amd/acp.c";
    std::string text = ksweep::read_file(acp).value_or("");
    const std::string old_read =
        "static int smn_read(struct pci_dev *dev, u32 smn_addr, u32 *data)\n"
        "{\n"
        "\tpci_write_config_dword(dev, 0x60, smn_addr);\n"
        "\tpci_read_config_dword(dev, 0x64, data);\n"
        "\n"
        "\treturn 0;\n"
        "}\n";
    ASSERT_NE(text.find(old_read), std::string::npos);
    text.replace(text.find(old_read), old_read.size(),
                 "static int smn_read(struct pci_dev *dev, u32 smn_addr)\n{\n\tu32 data = 0;\n\n"
                 "\tpci_write_config_dword(dev, 0x60, smn_addr);\n"
                 "\tpci_read_config_dword(dev, 0x64, &data);\n\n\treturn data;\n}\n");
    text = std::regex_replace(text, std::regex(R"(smn_read\(adata->smn_dev, (\w+), &data\);)"),
                              "data = smn_read(adata->smn_dev, $1);");
    fs::remove(acp);
    {
        std::ofstream out(acp, std::ios::binary);
        out << text;
    }
    // The tree itself is as it was.
    ASSERT_NE(ksweep::read_file(tree_ + "/sound/soc/sof/amd/acp.c")->find(old_read),
              std::string::npos);

    const std::string returned = fix("--rule " + quote(kUpTo2s), "sound/soc/sof/amd/acp.c", copy);
    // psp_mbox_ready(): read_poll_timeout() as upstream wrote it, sleeping first as the loop did,
    // with a timeout of the longest the loop waits today (5 x 40 ms at HZ=100).
    EXPECT_NE(returned.find("+\tif (!read_poll_timeout(smn_read, data, data & MBOX_READY_MASK, "
                            "20000,\n"),
              std::string::npos)
        << returned;
    EXPECT_NE(returned.find("  loop iopoll sound/soc/sof/amd/acp.c:159: msleep(20): for loop of 5 "
                            "tries -> read_poll_timeout(), timeout 200000 us"),
              std::string::npos)
        << returned;
    // psp_send_cmd(): a second between tries is no poll for usleep_range(); upstream made it
    // 1 ms first.
    EXPECT_NE(returned.find("read_poll_timeout() does not fit: its sleep of 1000 ms is above the "
                            "~20 ms read_poll_timeout() sleeps with usleep_range()"),
              std::string::npos)
        << returned;
}

// Every sleep in a count-ended loop that a series rewrites says what became of its loop's budget
// in its patch's mail; the others are left, each with its reason. Over whole subsystems.
TEST_F(Linux61Loops, NoCountedLoopLosesItsBudgetWithoutAWordInTheMail) {
    const std::string paths = "drivers/iio drivers/input sound/isa sound/pci";
    auto scanned = run(std::string(KSWEEP_BINARY) + " scan --rule msleep_small --format json " +
                           quote(tree_) + " " + paths + " 2>/dev/null",
                       false);
    ASSERT_EQ(scanned.status, 0);
    const ksweep::Json scan = ksweep::Json::parse(scanned.output);
    ksweep::TempDir dir{"loops-series"};
    const std::string out = (dir.path() / "sweep").string();
    auto made = run(std::string(KSWEEP_BINARY) +
                        " series --rule msleep_small --signoff 'Test Maintainer "
                        "<test@example.org>' -o " +
                        quote(out) + " " + quote(tree_) + " " + paths + " 2>&1",
                    false);
    ASSERT_EQ(made.status, 0) << made.output;
    const ksweep::Json index = ksweep::Json::parse(*ksweep::read_file(out + "/index.json"));

    // Each file's mail (the patch whose diff changes it), its whitespace made single spaces (the
    // body is wrapped).
    std::map<std::string, std::string> mail_of;
    static const std::regex kChanged("^diff --git a/(\\S+) ");
    for (const auto& e : fs::recursive_directory_iterator(out)) {
        if (e.path().extension() != ".patch")
            continue;
        const std::string mail = *ksweep::read_file(e.path());
        const std::string text = std::regex_replace(mail, std::regex("\\s+"), " ");
        std::istringstream lines(mail);
        std::smatch m;
        for (std::string line; std::getline(lines, line);)
            if (std::regex_search(line, m, kChanged))
                mail_of[m[1]] = text;
    }
    std::map<std::string, std::string> left;
    for (const auto& l : index.at("left_alone")) // "where": FILE:LINE, "why": the reason
        left[l.at("where").get<std::string>()] = l.at("why").get<std::string>();

    size_t counted = 0, said = 0, left_with_figures = 0;
    for (const auto& f : scan.at("findings")) {
        if (!f.at("actionable").get<bool>() || f.at("inactive").get<bool>() ||
            f.at("loop").at("ends_by") != "count")
            continue;
        ++counted;
        const std::string file = f.at("file").get<std::string>();
        const std::string where = file + ":" + std::to_string(f.at("line").get<int>());
        if (left.count(where)) {
            EXPECT_NE(left[where].find("its loop gives up after"), std::string::npos) << where;
            ++left_with_figures;
            continue;
        }
        ASSERT_TRUE(mail_of.count(file)) << where << " is neither left nor in a mail";
        const std::string call =
            std::regex_replace(f.at("call").get<std::string>(), std::regex("\\s+"), " ");
        const std::string sentence =
            f.at("function").get<std::string>() + "(): " + call + " paces a ";
        const size_t at = mail_of[file].find(sentence);
        ASSERT_NE(at, std::string::npos) << where << ": no word on its loop in the mail";
        const std::string said_there = mail_of[file].substr(at, 1200);
        // The budget before -> after at the tree's HZ, or why it is not known.
        EXPECT_TRUE(std::regex_search(said_there,
                                      std::regex(R"(\d+(\.\d)? ms -> \d+(\.\d)? ms at HZ=250)")) ||
                    said_there.find("is not known") != std::string::npos)
            << where << ": " << said_there;
        ++said;
    }
    EXPECT_GE(counted, 10u); // the subtrees hold that many
    EXPECT_EQ(said + left_with_figures, counted);
    std::printf("count-ended sites: %zu; said in the mail: %zu; left with the figures: %zu\n",
                counted, said, left_with_figures);
}

// docs/loops.md's five before/after diffs, as `ksweep series` writes them (ak8974, hx711 and
// msnd_pinnacle's test that reads the port itself into an iopoll helper, srf08 and sscape kept
// with their budget stated), apply, are checkpatch --strict clean and build (L1-L3), against a
// build dir prepared from a small config that enables the five drivers (Debian's enables neither
// ak8974 nor, on x86_64, ISA sound).
TEST_F(Linux61Loops, TheDocsFiveLoopRewritesApplyAreCheckpatchCleanAndBuild) {
    ksweep::TempDir dir{"loops-l3"};
    const std::string out = (dir.path() / "sweep").string();
    auto made = run(std::string(KSWEEP_BINARY) +
                        " series --rule msleep_small --signoff 'Test Maintainer "
                        "<test@example.org>' -o " +
                        quote(out) + " " + quote(tree_) +
                        " drivers/iio/magnetometer/ak8974.c drivers/iio/adc/hx711.c"
                        " drivers/iio/proximity/srf08.c sound/isa/sscape.c"
                        " sound/isa/msnd/msnd_pinnacle.c 2>&1",
                    false);
    ASSERT_EQ(made.status, 0) << made.output;
    EXPECT_NE(made.output.find("loops that give up after a count: 3 into an iopoll helper, 4 kept"),
              std::string::npos)
        << made.output;
    auto validated = run(
        std::string(KSWEEP_BINARY) + " validate --series " + quote(out) +
            " --levels 1,2,3 --config " + quote(std::string(KSWEEP_FIXTURES) + "/loops/l3.config") +
            " -o " + quote((dir.path() / "reports").string()) + " " + quote(tree_) + " 2>&1",
        false);
    EXPECT_EQ(validated.status, 0) << validated.output;
    const ksweep::Json index = ksweep::Json::parse(*ksweep::read_file(out + "/index.json"));
    size_t patches = 0;
    for (const auto& series : index.at("series")) {
        const size_t n = series.at("patches").size();
        patches += n;
        for (size_t level = 0; level < 3; ++level)
            EXPECT_EQ(series.at("validation").at("levels").at(level).at("passed"), n)
                << series.at("name") << " L" << level + 1 << "\n"
                << validated.output;
    }
    EXPECT_EQ(patches, 5u) << validated.output;
    for (const char* module : {"ak8974", "hx711", "srf08", "snd-sscape", "snd-msnd-pinnacle"})
        EXPECT_NE(validated.output.find(std::string("L3 passed         ") + module + ": builds"),
                  std::string::npos)
            << module << "\n"
            << validated.output;
}

} // namespace
