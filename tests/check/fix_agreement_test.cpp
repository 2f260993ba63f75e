// One planner: the replacement a warning suggests is the text `ksweep fix` writes for that
// site. For every fixture of the fix tests (tests/fixtures/fix), a tree holding it is fixed
// with the real scan and fix (plan_fixes), and a patch that adds the same file is checked;
// every warning's suggestion must be what the fixed file says at that site, in order, with
// the slack constant the fixed file defines.
#include "check/location.h"
#include "check/patch_check.h"
#include "check_test_support.h"
#include "core/file_io.h"
#include "rewrite/fixer.h"
#include "rewrite/scanner.h"
#include "test_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>

namespace fs = std::filesystem;

namespace ksweep::check {
namespace {

const std::string kFixFixtures = std::string(KSWEEP_FIXTURES) + "/fix";

// The text without whitespace and line continuations: a laid-out call and its one-line form
// compare equal.
std::string squeezed(const std::string& text) {
    std::string out;
    for (char c : text)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\\')
            out += c;
    return out;
}

struct Case {
    std::string fixture;
    bool fsleep = false;
};

void PrintTo(const Case& c, std::ostream* os) {
    *os << c.fixture << (c.fsleep ? " (fsleep)" : "");
}

class FixAgreement : public ::testing::TestWithParam<Case> {};

TEST_P(FixAgreement, TheWarningSuggestsWhatFixWrites) {
    const Case c = GetParam();
    Rule rule = load_rule(default_rule_path());
    if (c.fsleep)
        rule.target = Target::Fsleep;
    TempDir tree("ksweep-fix-agreement");
    test::write_file(tree.path() / "Makefile", "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n"
                                               "EXTRAVERSION = -fixture\n");
    test::write_file(tree.path() / "include/linux/delay.h",
                     "#define USEC_PER_MSEC 1000L\nvoid msleep(unsigned int msecs);\n"
                     "void usleep_range(unsigned long min, unsigned long max);\n"
                     "void fsleep(unsigned long usecs);\n");
    const std::string path = "drivers/misc/" + c.fixture;
    const std::string text = *read_file(kFixFixtures + "/" + c.fixture);
    test::write_file(tree.path() / "drivers/misc/qux.h", *read_file(kFixFixtures + "/qux.h"));

    // ksweep check on a patch that adds the file to the tree without it.
    PatchChecker checker(rule, CheckOptions{tree.path().string(), "", true, 250});
    Overlay overlay;
    CheckInput input{"p", "p", testing::new_file_patch(path, text),
                     tree_reader(tree.path().string())};
    const InputReport report = checker.check(input, overlay);
    ASSERT_FALSE(report.warnings.empty());

    // ksweep fix on the tree with it.
    test::write_file(tree.path() / path, text);
    ScanOptions options;
    options.tree = tree.path().string();
    options.paths = {path};
    options.jobs = 1;
    options.hz = 250;
    const FixResult fix = plan_fixes(rule, options, scan_tree(rule, options));
    const FileFix* fixed = fix.files.empty() ? nullptr : &fix.files.front();

    const std::string written = fixed ? squeezed(fixed->fixed) : "";
    // The line of the call fix would change: a macro use's call is in the macro's body.
    auto fixed_line = [](const Warning& w) {
        return w.via_macro ? split_location(w.finding.defined_at).second : w.finding.line;
    };
    auto fix_rewrote = [&](unsigned line) {
        return fixed && std::any_of(fixed->sites.begin(), fixed->sites.end(),
                                    [&](const SiteOutcome& s) { return s.finding.line == line; });
    };
    size_t from = 0;
    std::set<unsigned> suggested;
    for (const Warning& w : report.warnings) {
        SCOPED_TRACE(w.finding.call + " at line " + std::to_string(w.finding.line));
        if (w.advice.replacement.empty()) {
            // fix leaves it alone, and the warning says why; for a call of this file, in
            // fix's own words.
            EXPECT_FALSE(fix_rewrote(fixed_line(w)));
            EXPECT_FALSE(w.advice.refused.empty());
            if (!w.via_macro) {
                bool same_reason = false;
                for (const SiteOutcome& s : fix.skipped)
                    same_reason |= s.finding.line == w.finding.line && s.reason == w.advice.refused;
                EXPECT_TRUE(same_reason) << w.advice.refused;
            }
            continue;
        }
        ASSERT_NE(fixed, nullptr);
        EXPECT_TRUE(fix_rewrote(fixed_line(w)));
        size_t at = written.find(squeezed(w.advice.replacement), from);
        ASSERT_NE(at, std::string::npos) << w.advice.replacement << "\nnot in\n" << fixed->fixed;
        from = at + 1;
        suggested.insert(fixed_line(w));
        if (!w.advice.slack_define.empty()) {
            EXPECT_NE(written.find(squeezed(w.advice.slack_define)), std::string::npos)
                << w.advice.slack_define;
        }
        EXPECT_NE(w.message.find("use " + w.advice.replacement), std::string::npos) << w.message;
    }
    // Every site fix rewrote was suggested.
    EXPECT_EQ(suggested.size(), fixed ? fixed->sites.size() : 0u);
}

INSTANTIATE_TEST_SUITE_P(FixFixtures, FixAgreement,
                         ::testing::Values(Case{"literal.c"}, Case{"literal.c", true},
                                           Case{"macro_scaled.c"}, Case{"macro_usec.c"},
                                           Case{"quux_body.c"}, Case{"qux_header.c"}),
                         [](const auto& info) {
                             std::string name = info.param.fixture;
                             name = name.substr(0, name.find('.'));
                             return name + (info.param.fsleep ? "_fsleep" : "");
                         });

} // namespace
} // namespace ksweep::check
