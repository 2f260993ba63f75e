// What the tree under the fix decides: `target: auto` from its fsleep() and timers document
// (rewrite/tree_target.h), and the subsystem's own millisecond sleep helper
// (rewrite/sleep_helpers.h), each with the shapes of tree and header it must tell apart.
#include "core/file_io.h"
#include "rewrite/fixer.h"
#include "rewrite/sleep_helpers.h"
#include "rewrite/tree_target.h"
#include "scan_test_support.h"
#include "test_files.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>

namespace ksweep {
namespace {

namespace fs = std::filesystem;

kbuild::SleepApi api(kbuild::FsleepKind fsleep, const std::string& doc) {
    kbuild::SleepApi a;
    a.fsleep = fsleep;
    a.fsleep_source = "include/linux/delay.h:90";
    a.timers_doc = doc;
    return a;
}

const std::string kNewDoc = "Documentation/timers/delay_sleep_functions.rst";
const std::string kOldDoc = "Documentation/timers/timers-howto.rst";

TEST(TargetAuto, FsleepOnlyWhereItsSlackIsBoundedAndTheDocumentAsksForIt) {
    const TargetChoice v613 = choose_target(api(kbuild::FsleepKind::QuarterSlack, kNewDoc));
    EXPECT_EQ(v613.target, Target::Fsleep);
    EXPECT_EQ(v613.why, "fsleep() keeps 25 % slack at most (include/linux/delay.h:90) and " +
                            kNewDoc + " recommends it");
    const TargetChoice v612 = choose_target(api(kbuild::FsleepKind::DoubleRange, kOldDoc));
    EXPECT_EQ(v612.target, Target::UsleepRange);
    EXPECT_EQ(v612.why, "fsleep() allows twice the sleep here (include/linux/delay.h:90): "
                        "usleep_range() with a named slack");
    const TargetChoice v57 = choose_target(api(kbuild::FsleepKind::Absent, kOldDoc));
    EXPECT_EQ(v57.target, Target::UsleepRange);
    EXPECT_EQ(v57.why, "the tree has no fsleep(): usleep_range() with a named slack");
    // A new fsleep() but the old document: the tree does not ask for it.
    EXPECT_EQ(choose_target(api(kbuild::FsleepKind::QuarterSlack, kOldDoc)).target,
              Target::UsleepRange);
}

// A tree of just the files read_sleep_api() looks at.
class TinyTree {
  public:
    explicit TinyTree(const std::string& delay_h) {
        write("Makefile", "VERSION = 5\nPATCHLEVEL = 4\nSUBLEVEL = 0\n");
        write("include/linux/delay.h", delay_h);
    }
    void write(const std::string& rel, const std::string& text) const {
        test::write_file(dir_.path() / rel, text);
    }
    std::string path() const { return dir_.path().string(); }

  private:
    TempDir dir_{"ksweep-tiny-tree"};
};

TEST(TargetAuto, SettlesEveryRuleAndRefusesFsleepWhereThereIsNone) {
    const TinyTree old_tree("void msleep(unsigned int msecs);\n");
    std::vector<Rule> rules = {testing::msleep_rule()};
    EXPECT_EQ(rules[0].target, Target::Auto);
    EXPECT_EQ(settle_targets(rules, old_tree.path(), ""),
              "target auto: usleep_range (the tree has no fsleep(): usleep_range() with a named "
              "slack)");
    EXPECT_EQ(rules[0].target, Target::UsleepRange);

    std::vector<Rule> wants_fsleep = {testing::msleep_rule()};
    wants_fsleep[0].target = Target::Fsleep;
    EXPECT_THROW(settle_targets(wants_fsleep, old_tree.path(), ""), RuleError);
}

TEST(TargetAuto, AnUnsettledAutoIsUsleepRange) {
    const Rule rule = testing::msleep_rule();
    EXPECT_EQ(rule.target_for("drivers/input/foo.c"), Target::UsleepRange);
}

// tpm.h-like: a header two quote includes away from the driver.
const std::map<std::string, std::string> kHeaders = {
    {"drivers/foo/foo_core.h", "#include \"foo.h\"\nstruct foo_chip;\n"},
    {"drivers/foo/foo.h",
     "#define FOO_RANGE_US 300\nenum { FOO_TIMEOUT = 5 };\n\n"
     "static inline void foo_msleep(unsigned int delay_msec)\n{\n"
     "\tusleep_range((delay_msec * 1000) - FOO_RANGE_US,\n\t\t     delay_msec * 1000);\n};\n\n"
     "/* A name that says msleep but is not an hrtimer sleep. */\n"
     "static inline void foo_slow_msleep(unsigned int ms)\n{\n\tmsleep(ms);\n}\n"},
};

std::optional<std::string> read_header(const std::string& rel) {
    auto it = kHeaders.find(rel);
    return it == kHeaders.end() ? std::nullopt : std::optional(it->second);
}

TEST(SleepHelpers, FoundThroughTheFilesOwnQuoteIncludes) {
    const std::string driver = "#include <linux/delay.h>\n#include \"foo_core.h\"\n";
    const auto helper =
        find_sleep_helper({"foo_msleep"}, "drivers/foo/foo_i2c.c", driver, read_header);
    ASSERT_TRUE(helper);
    EXPECT_EQ(helper->name, "foo_msleep");
    EXPECT_EQ(helper->defined_at, "drivers/foo/foo.h:4");
}

TEST(SleepHelpers, OnlyAnHrtimerSleepOfMillisecondsTheFileSees) {
    const std::string driver = "#include \"foo_core.h\"\n";
    // Its body is msleep(): not what the rule means by a helper.
    EXPECT_FALSE(
        find_sleep_helper({"foo_slow_msleep"}, "drivers/foo/foo_i2c.c", driver, read_header));
    // Not included: not visible.
    EXPECT_FALSE(find_sleep_helper({"foo_msleep"}, "drivers/foo/foo_i2c.c",
                                   "#include <linux/delay.h>\n", read_header));
    // No helper named for the path.
    EXPECT_FALSE(find_sleep_helper({}, "drivers/foo/foo_i2c.c", driver, read_header));
}

TEST(SleepHelpers, FixWritesTheHelperWithTheMillisecondsAsWritten) {
    Rule rule = testing::msleep_rule();
    RuleOverride foo;
    foo.path = "drivers/foo/";
    foo.helpers = {"foo_msleep"};
    rule.overrides.push_back(foo);
    const std::string text = "#include \"foo_core.h\"\n\nstatic void foo_wait(void)\n{\n"
                             "\tmsleep(FOO_TIMEOUT);\n\tmsleep(2);\n}\n";
    Finding f;
    f.file = "drivers/foo/foo_i2c.c";
    f.rule = rule.name;
    f.callee = "msleep";
    f.call = "msleep(FOO_TIMEOUT)";
    f.argument = f.constant = "FOO_TIMEOUT";
    f.value = 5;
    f.resolution = Resolution::Enum;
    f.defined_at = "drivers/foo/foo.h:2";
    f.line = 5;
    f.call_begin = static_cast<unsigned>(text.find("msleep(FOO"));
    f.call_end = f.call_begin + static_cast<unsigned>(f.call.size());
    f.arg_begin = f.call_begin + 7;
    f.arg_end = f.call_end - 1;
    f.actionable = true;
    Finding two = f;
    two.call = "msleep(2)";
    two.argument = "2";
    two.constant.clear();
    two.defined_at.clear();
    two.value = 2;
    two.resolution = Resolution::Literal;
    two.line = 6;
    two.call_begin = static_cast<unsigned>(text.find("msleep(2)"));
    two.call_end = two.call_begin + 9;
    two.arg_begin = two.call_begin + 7;
    two.arg_end = two.call_end - 1;
    std::vector<SiteOutcome> skipped;
    const FileFix fix = fix_file_text(rule, f.file, text, {f, two}, skipped, read_header);
    EXPECT_EQ(fix.fixed, "#include \"foo_core.h\"\n\nstatic void foo_wait(void)\n{\n"
                         "\tfoo_msleep(FOO_TIMEOUT);\n\tfoo_msleep(2);\n}\n");
    EXPECT_TRUE(fix.slack_name.empty()); // no constant invented
    ASSERT_EQ(fix.sites.size(), 2u);
    EXPECT_EQ(fix.sites[0].how, "the tree's own foo_msleep() (drivers/foo/foo.h:4)");
    // Without a way to read the headers, the rule's own target.
    const FileFix blind = fix_file_text(rule, f.file, text, {f, two}, skipped);
    EXPECT_NE(blind.fixed.find("usleep_range(FOO_TIMEOUT * USEC_PER_MSEC"), std::string::npos)
        << blind.fixed;
}

} // namespace
} // namespace ksweep
