// `ksweep scan` as users run it: the JSON contract (docs/scan-json.md), the text summary and
// the exit codes.
#include "json_fields.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using ksweep::Json;

struct CliRun {
    int status = -1;
    std::string out, err;
};

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

CliRun ksweep(const std::string& args) {
    std::string dir = ::testing::TempDir();
    std::string out = dir + "/scan_cli_out." + std::to_string(getpid());
    std::string err = dir + "/scan_cli_err." + std::to_string(getpid());
    std::string cmd = std::string(KSWEEP_BINARY) + " scan " + args + " >" + out + " 2>" + err;
    int raw = std::system(cmd.c_str());
    CliRun r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    std::remove(out.c_str());
    std::remove(err.c_str());
    return r;
}

// Field accessors that turn "absent" into a value a test can compare.
std::string str(const Json& o, const char* key) {
    return ksweep::test::json_string(o, key, "<absent>");
}
long long integer(const Json& o, const char* key) {
    return ksweep::test::json_integer(o, key, -999);
}

const std::string kTree = std::string(KSWEEP_FIXTURES) + "/scan";

TEST(ScanCli, JsonCarriesTheDocumentedFields) {
    CliRun r = ksweep("--format json " + kTree + " drivers/fixture/headers.c");
    ASSERT_EQ(r.status, 0) << r.err;
    const Json parsed = ksweep::test::parse_json(r.out);
    ASSERT_FALSE(parsed.is_discarded()) << r.out;
    const Json* root = &parsed;
    ASSERT_TRUE(root->is_object());
    EXPECT_EQ(str(*root, "tree"), kTree);
    EXPECT_EQ(integer(*root, "hz"), 250);
    EXPECT_EQ(str(*root, "kernel_version"), "6.1.0");
    const Json* findings = root->contains("findings") ? &root->at("findings") : nullptr;
    ASSERT_TRUE(findings && findings->is_array());
    ASSERT_EQ(findings->size(), 7u);
    for (const auto& v : *findings) {
        const Json* f = &v;
        for (const char* key :
             {"file", "line", "column", "function", "call", "value_ms", "resolution", "defined_at",
              "engine", "predicted_sleep_ms", "actionable", "inactive", "note", "constant"})
            EXPECT_TRUE(f->contains(key)) << "missing " << key;
    }
    const Json* enumerator = &(*findings)[2];
    EXPECT_EQ(str(*enumerator, "file"), "drivers/fixture/headers.c");
    EXPECT_EQ(integer(*enumerator, "line"), 14);
    EXPECT_EQ(str(*enumerator, "call"), "msleep(FIX_TIMEOUT)");
    EXPECT_EQ(integer(*enumerator, "value_ms"), 5);
    EXPECT_EQ(str(*enumerator, "resolution"), "enum");
    EXPECT_EQ(str(*enumerator, "defined_at"), "include/linux/fixture_timeouts.h:10");
    EXPECT_EQ(str(*enumerator, "engine"), "semantic");
    EXPECT_EQ(enumerator->value("actionable", false), true);
    EXPECT_GT(enumerator->at("predicted_sleep_ms").get<double>(), 5.0);
    const Json* parameter = &(*findings)[5];
    EXPECT_EQ(str(*parameter, "resolution"), "unresolved");
    EXPECT_TRUE(parameter->at("value_ms").is_null());
    EXPECT_TRUE(parameter->at("predicted_sleep_ms").is_null());
}

TEST(ScanCli, TextIsATableWithASummary) {
    CliRun r = ksweep("--hz 1000 " + kTree + " drivers/fixture/literals.c");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("drivers/fixture/literals.c:9:2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("8 calls (8 msleep_small, 0 short_jiffy_sleeps) in 1 of 1 files: 0 enum, "
                         "0 expression, 8 literal"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("6 actionable"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("HZ=1000"), std::string::npos) << r.out;
    // No progress when stderr is not a terminal: only the one line that says what was used.
    EXPECT_EQ(r.err.rfind("ksweep scan: no build dir: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("HZ=1000 as given with --hz"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(ScanCli, FailOnFindingsExitsOneOnlyWhenSomethingIsActionable) {
    EXPECT_EQ(ksweep("--fail-on-findings " + kTree + " drivers/fixture/literals.c").status, 1);
    EXPECT_EQ(ksweep("--fail-on-findings " + kTree + " include/linux/delay.h").status, 0);
    EXPECT_EQ(ksweep(kTree + " drivers/fixture/literals.c").status, 0);
}

TEST(ScanCli, UsageAndInputErrorsExitTwo) {
    CliRun none = ksweep(kTree + "/missing");
    EXPECT_EQ(none.status, 2);
    EXPECT_NE(none.err.find("no such directory"), std::string::npos) << none.err;
    // A subdirectory of a tree given as TREE: the way it was meant.
    CliRun not_kernel = ksweep(kTree + "/drivers");
    EXPECT_EQ(not_kernel.status, 2);
    EXPECT_NE(not_kernel.err.find("is not the top of a kernel tree but a directory inside " +
                                  kTree + ": did you mean 'ksweep scan " + kTree + " drivers'?"),
              std::string::npos)
        << not_kernel.err;
    EXPECT_EQ(ksweep("--format xml " + kTree).status, 2);
    EXPECT_EQ(ksweep("").status, 2);
    EXPECT_EQ(ksweep("--no-such-option " + kTree).status, 2);
}

TEST(ScanCli, MalformedRuleReportsFileLineColumn) {
    std::string rule = ::testing::TempDir() + "/bad_rule." + std::to_string(getpid()) + ".yaml";
    std::ofstream(rule) << "name: bad\nfunctions: [msleep\nthreshold_ms: 20\n";
    CliRun r = ksweep("--rule " + rule + " " + kTree);
    std::remove(rule.c_str());
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind(rule + ":", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(rule + ":3:"), std::string::npos) << r.err;
}

} // namespace
