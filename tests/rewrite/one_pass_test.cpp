// One pass over the tree for every rule (scanner.h): each file read once and parsed at most once
// for all rules, each finding still the one its rule's scan alone gives, also where two rules
// look at one call in two shapes: schedule_timeout(ARG) for one, schedule_timeout(
// msecs_to_jiffies(ARG)) for the other.
#include "core/file_io.h"
#include "rewrite/scanner.h"
#include "test_files.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace ksweep;
using ksweep::test::write_file;

namespace {

struct TwoShapes {
    TempDir dir{"ksweep-one-pass-test"};
    std::string tree = (dir.path() / "linux").string();
    std::vector<Rule> rules;

    TwoShapes() {
        write_file(tree + "/Makefile", "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n");
        write_file(tree + "/include/linux/sched.h",
                   "#define WAIT_JIFFIES 2\n#define DELAY_MS 3\n"
                   "long schedule_timeout(long timeout);\n"
                   "unsigned long msecs_to_jiffies(unsigned int m);\n");
        write_file(tree + "/drivers/foo/foo.c", "#include <linux/sched.h>\n"
                                                "static void f(void)\n"
                                                "{\n"
                                                "\tschedule_timeout(WAIT_JIFFIES);\n"
                                                "\tschedule_timeout(msecs_to_jiffies(DELAY_MS));\n"
                                                "}\n");
        const std::string plain = (dir.path() / "plain_timeouts.yaml").string();
        write_file(plain, "name: plain_timeouts\n"
                          "type: PLAIN_TIMEOUT\n"
                          "summary: schedule_timeout() of a constant\n"
                          "threshold_ms: 20\n"
                          "calls:\n"
                          "  - {call: schedule_timeout, unit: ms, sleep: msleep, fix: never,\n"
                          "     why: \"a test rule\"}\n");
        rules.push_back(load_rule(plain));
        rules.push_back(
            load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/short_jiffy_sleeps.yaml"));
    }

    ScanResult scan(const std::vector<Rule>& with) const {
        ScanOptions o;
        o.tree = tree;
        o.paths = {"drivers/foo/foo.c"};
        o.jobs = 1;
        o.preambles = false;
        return scan_tree(with, o);
    }
};

std::string described(const Finding& f) {
    return f.rule + " " + std::to_string(f.line) + " " + f.through + " " + f.value_text();
}

} // namespace

TEST(OnePassTest, EachRuleGetsItsOwnShapeOfACallBothLookAt) {
    TwoShapes t;
    const ScanResult both = t.scan(t.rules);
    std::vector<std::string> seen;
    for (const Finding& f : both.findings)
        seen.push_back(described(f));
    EXPECT_EQ(seen, (std::vector<std::string>{
                        "plain_timeouts 4  2 ms",
                        "plain_timeouts 5  ?",
                        "short_jiffy_sleeps 5 msecs_to_jiffies 3 ms",
                    }));
    EXPECT_EQ(both.files_scanned, 1u);
    EXPECT_EQ(both.files_semantic, 1u);

    // The same findings as each rule's scan alone.
    std::vector<std::string> alone;
    for (const Rule& rule : t.rules)
        for (const Finding& f : t.scan({rule}).findings)
            alone.push_back(described(f));
    std::sort(alone.begin(), alone.end());
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, alone);
}
