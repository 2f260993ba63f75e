// rules/msleep_small.cocci run by the real spatch: its four modes, its agreement with the
// yaml rule's slack, and the cross-check against the clang engines on a fixture tree that
// holds one site of each category (tests/fixtures/check/cross_tree/drivers/bar/).
#include "check/patch_check.h"
#include "rewrite/cocci_engine.h"
#include "rewrite/cross_check.h"
#include "test_repo.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::run;

namespace ksweep {
namespace {

const std::string kTree = std::string(KSWEEP_FIXTURES) + "/check/cross_tree";
const std::string kSpFile = std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.cocci";

std::string spatch(const std::string& mode, const std::string& file) {
    return run("spatch --very-quiet --sp-file " + quote(kSpFile) + " -D " + mode +
                   " --no-includes --include-headers " + quote(file),
               false)
        .output;
}

TEST(CocciRule, ReportModeFindsLiteralsAndSameFileDefines) {
    Rule rule = load_rule(default_rule_path());
    CocciOptions options;
    options.tree = kTree;
    CocciResult r = run_cocci_scan(rule, options);
    EXPECT_TRUE(r.errors.empty()) << r.errors.front();
    std::vector<std::string> found;
    for (const auto& f : r.findings)
        found.push_back(f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column) +
                        " " + f.call + " = " + std::to_string(f.value.value_or(-1)) + " " +
                        std::string(to_string(f.resolution)) + " " + f.defined_at);
    EXPECT_EQ(found, (std::vector<std::string>{
                         "drivers/bar/bar.c:11:20 msleep(1) = 1 literal ",
                         "drivers/bar/bar.c:21:2 msleep(1) = 1 literal ",
                         "drivers/bar/bar.c:22:2 msleep(BAR_DELAY) = 2 macro drivers/bar/bar.c:9",
                         "drivers/bar/bar.c:27:2 msleep(BAR_MODE_DELAY) = 1 macro "
                         "drivers/bar/bar.c:14",
                         "drivers/bar/bar.c:38:2 msleep(BAR_LINE_COMMENT_DELAY) = 6 macro "
                         "drivers/bar/bar.c:33",
                     }));
}

TEST(CocciRule, PatchModeWritesUsleepRange) {
    std::string diff = spatch("patch", kTree + "/drivers/bar/bar.c");
    EXPECT_NE(diff.find("+\tusleep_range(1000, 1250);"), std::string::npos) << diff;
    EXPECT_NE(diff.find("+\tusleep_range(BAR_DELAY * 1000, BAR_DELAY * 1000 + 500);"),
              std::string::npos)
        << diff;
    EXPECT_EQ(diff.find("-\tmsleep(25);"), std::string::npos) << diff;
    EXPECT_EQ(diff.find("-\tmsleep(BAR_HDR_DELAY);"), std::string::npos) << diff;
}

TEST(CocciRule, ContextAndOrgModes) {
    std::string context = spatch("context", kTree + "/drivers/bar/bar.c");
    EXPECT_NE(context.find("-\tmsleep(1);"), std::string::npos) << context;
    std::string org = spatch("org", kTree + "/drivers/bar/bar.c");
    EXPECT_NE(org.find("* TODO [[view:"), std::string::npos) << org;
}

TEST(CocciRule, SlackAgreesWithTheYamlRuleDefault) {
    // Every small literal: the twin's patch mode gives each call the range of the rule's slack
    // policy for that sleep alone.
    Rule rule = load_rule(default_rule_path());
    ksweep::test::TempDir dir;
    std::string body;
    for (int ms = 1; ms < 20; ++ms)
        body += "\tmsleep(" + std::to_string(ms) + ");\n";
    ksweep::test::write_file(dir.path() + "/all.c", "void f(void)\n{\n" + body + "}\n");
    std::string diff = spatch("patch", dir.path() + "/all.c");
    for (int ms = 1; ms < 20; ++ms) {
        const long long us = ms * 1000LL;
        const long long slack = slack_us(rule.slack_for("drivers/foo/all.c"), us);
        std::string expected =
            "+\tusleep_range(" + std::to_string(us) + ", " + std::to_string(us + slack) + ");\n";
        EXPECT_NE(diff.find(expected), std::string::npos) << expected << diff;
    }
}

TEST(CocciRule, ReadsReportLines) {
    Rule rule = load_rule(default_rule_path());
    auto findings = parse_cocci_report(
        "/t/drivers/x.c:7:1-7: WARNING: msleep(0x3) < 20ms can sleep for up to 20ms; use "
        "usleep_range(3000, 3750)\nnoise\n"
        "/t/drivers/x.c:9:2-8: WARNING: msleep(X_MS) < 20ms can sleep for up to 20ms; X_MS is 4, "
        "#define at line 2; use usleep_range(X_MS * 1000, X_MS * 1000 + 1000)\n",
        "/t", rule, 250, KernelVersion{6, 1, 0});
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].file, "drivers/x.c");
    EXPECT_EQ(findings[0].column, 2u); // spatch counts columns from 0
    EXPECT_EQ(findings[0].value, 3);
    EXPECT_EQ(findings[0].engine, Engine::Cocci);
    EXPECT_EQ(findings[1].constant, "X_MS");
    EXPECT_EQ(findings[1].defined_at, "drivers/x.c:2");
    EXPECT_DOUBLE_EQ(findings[1].predicted_sleep_ms, 12.0);
}

TEST(CrossCheck, ExplainsEveryDifferenceOnTheFixtureTree) {
    Rule rule = load_rule(default_rule_path());
    ScanOptions options;
    options.tree = kTree;
    ScanResult ksweep = scan_tree(rule, options);
    CrossCheckResult r = cross_check_scan(rule, options, ksweep);
    EXPECT_EQ(r.spatch_sites, 5u);
    EXPECT_EQ(r.both, 4u);
    EXPECT_EQ(r.ksweep_only, (std::map<std::string, size_t>{
                                 {"#define inside a function body", 1},
                                 {"constant expression", 1},
                                 {"constant from a header", 1},
                                 {"enum constant", 1},
                                 {"file spatch could not parse", 1},
                                 {"macro of an expression or another macro", 1},
                             }));
    EXPECT_EQ(r.spatch_only,
              (std::map<std::string, size_t>{
                  {"macro defined more than once: the engines took different #defines", 1}}));
    std::string text = format_cross_check_text(r);
    EXPECT_NE(text.find("Unexplained differences: 0"), std::string::npos) << text;
    EXPECT_NE(text.find("drivers/bar/bar_odd.c:8:2: ksweep only: file spatch could not parse"),
              std::string::npos)
        << text;
}

TEST(CrossCheck, ScanCliFlags) {
    auto cocci = run(std::string(KSWEEP_BINARY) + " scan --engine cocci " + quote(kTree), false);
    EXPECT_EQ(cocci.status, 0);
    EXPECT_NE(cocci.output.find("msleep(BAR_DELAY)"), std::string::npos) << cocci.output;
    auto cross = run(std::string(KSWEEP_BINARY) + " scan --cross-check " + quote(kTree), false);
    EXPECT_EQ(cross.status, 0);
    EXPECT_NE(cross.output.find("Sites (0 < value < threshold): ksweep 10, spatch 5, both 4."),
              std::string::npos)
        << cross.output;
}

} // namespace
} // namespace ksweep
