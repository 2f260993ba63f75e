// Every way a patch can bring in a small sleep without adding a line that says
// msleep(<literal>), each a patch of tests/fixtures/check/patches on the fixture tree's
// drivers/foo/foo_irq.c and foo.h. A removed line excuses an added one only when it holds the
// same call with the same value; a call the patch does not touch is reported when the patch
// changes what it sleeps.
#include "check_test_support.h"

#include <filesystem>
#include <fstream>

namespace ksweep::check {
namespace {

using testing::check_fixture;

class SleepSources : public ::testing::Test {
  protected:
    SleepSources() : rule_(load_rule(default_rule_path())) {}

    // The one warning of a patch: where, and the value the call has after it.
    Warning only_warning(const InputReport& r) {
        EXPECT_EQ(r.warnings.size(), 1u);
        EXPECT_TRUE(r.unresolved.empty());
        if (r.warnings.empty())
            throw std::runtime_error("no warning");
        return r.warnings.front();
    }

    Rule rule_;
};

TEST_F(SleepSources, ASubsystemHelperReplacedByMsleepIsNotAMove) {
    // foo_msleep(FOO_TIMEOUT) -> msleep(FOO_TIMEOUT): "msleep(FOO_TIMEOUT)" is a substring of
    // the removed line, but the removed call is another function.
    const Warning w = only_warning(check_fixture(rule_, "own_sleep_helper_to_msleep.patch"));
    EXPECT_EQ(w.finding.file, "drivers/foo/foo_irq.c");
    EXPECT_EQ(w.finding.line, 12u);
    EXPECT_EQ(w.finding.value, 5);
    EXPECT_EQ(w.input_line, 22u);
    EXPECT_TRUE(w.line_added);

    const Warning literal =
        only_warning(check_fixture(rule_, "own_sleep_helper_literal_to_msleep.patch"));
    EXPECT_EQ(literal.finding.call, "msleep(1)");
}

TEST_F(SleepSources, UsleepRangeReplacedByMsleep) {
    const Warning w = only_warning(check_fixture(rule_, "usleep_range_to_msleep.patch"));
    EXPECT_EQ(w.finding.call, "msleep(3)");
}

TEST_F(SleepSources, ALongSleepMadeShort) {
    const Warning w = only_warning(check_fixture(rule_, "shorter_literal.patch"));
    EXPECT_EQ(w.finding.call, "msleep(2)");
}

TEST_F(SleepSources, AHeaderDefineMadeSmallReachesACallInAnotherFile) {
    // The patch only changes foo.h; foo_irq.c's msleep(FOO_WAIT_MS) now sleeps 5 ms.
    const Warning w = only_warning(check_fixture(rule_, "header_define_made_small.patch"));
    EXPECT_EQ(w.finding.file, "drivers/foo/foo_irq.c");
    EXPECT_EQ(w.finding.line, 21u);
    EXPECT_EQ(w.finding.value, 5);
    EXPECT_FALSE(w.line_added);
    EXPECT_EQ(w.input_line, 22u); // the patch's "+#define FOO_WAIT_MS 5"
    EXPECT_EQ(w.added_line, "\tmsleep(FOO_WAIT_MS);");
    EXPECT_NE(w.message.find("FOO_WAIT_MS is 5 (#define at drivers/foo/foo.h:21, changed by "
                             "this patch)"),
              std::string::npos)
        << w.message;
}

TEST_F(SleepSources, ASameFileDefineMadeSmall) {
    const Warning w = only_warning(check_fixture(rule_, "same_file_define_made_small.patch"));
    EXPECT_EQ(w.finding.line, 16u);
    EXPECT_EQ(w.finding.call, "msleep(FOO_IRQ_SETTLE_MS)");
    EXPECT_EQ(w.finding.value, 5);
    EXPECT_FALSE(w.line_added);
}

TEST_F(SleepSources, AnEnumeratorChangedInAHeader) {
    const Warning w = only_warning(check_fixture(rule_, "enum_value_changed.patch"));
    EXPECT_EQ(w.finding.file, "drivers/foo/foo_irq.c");
    EXPECT_EQ(w.finding.call, "msleep(FOO_LONG_TIMEOUT)");
    EXPECT_EQ(w.finding.value, 2);
    EXPECT_EQ(w.input_line, 22u);
}

TEST_F(SleepSources, AHeaderMacroRedefinedInTheFile) {
    const Warning w = only_warning(check_fixture(rule_, "macro_redefined.patch"));
    EXPECT_EQ(w.finding.call, "msleep(FOO_WAIT_MS)");
    EXPECT_EQ(w.finding.line, 24u);
    EXPECT_EQ(w.finding.value, 3);
}

TEST_F(SleepSources, ACallAddedInAMacroBodyIsJudgedAtEachUse) {
    // #define foo_irq_pause(ms) msleep(ms), used with 4 and with 30: only the first is small.
    const Warning w = only_warning(check_fixture(rule_, "call_added_in_macro_body.patch"));
    EXPECT_EQ(w.finding.line, 26u);
    EXPECT_EQ(w.finding.value, 4);
    EXPECT_TRUE(w.line_added);
    EXPECT_NE(w.message.find("foo_irq_pause(4)"), std::string::npos) << w.message;
}

TEST_F(SleepSources, ANewUseOfAHeaderSleepMacro) {
    // foo_nap(ms) is msleep(ms) in foo.h: the call is spelled in the header.
    const Warning w = only_warning(check_fixture(rule_, "macro_use_added.patch"));
    EXPECT_EQ(w.finding.file, "drivers/foo/foo_irq.c");
    EXPECT_EQ(w.finding.line, 27u);
    EXPECT_EQ(w.finding.value, 3);
    EXPECT_NE(w.message.find("foo_nap(3)"), std::string::npos) << w.message;
}

TEST_F(SleepSources, AHeaderMacroWhoseBodyBecomesMsleep) {
    // foo_settle(ms) was usleep_range(), now msleep(ms): foo_irq.c's foo_settle(3) sleeps 3 ms.
    const Warning w = only_warning(check_fixture(rule_, "header_macro_body_changed.patch"));
    EXPECT_EQ(w.finding.file, "drivers/foo/foo_irq.c");
    EXPECT_EQ(w.finding.line, 23u);
    EXPECT_EQ(w.finding.value, 3);
    EXPECT_EQ(w.input_line, 22u);
}

TEST_F(SleepSources, ARenamedFileKeepsItsSleeps) {
    InputReport r = check_fixture(rule_, "rename_file.patch");
    EXPECT_TRUE(r.warnings.empty()) << r.warnings.front().message;
    EXPECT_TRUE(r.unresolved.empty());
}

TEST_F(SleepSources, ACopiedFileDuplicatesItsSmallSleeps) {
    PatchChecker checker(rule_, CheckOptions{testing::kTree, "", true, 250});
    Overlay overlay;
    CheckInput input{"copy", "copy", testing::fixture_text(testing::kPatches + "/copy_file.patch"),
                     tree_reader(testing::kTree)};
    InputReport r = checker.check(input, overlay);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0].finding.file, "drivers/foo/foo_irq_b.c");
    EXPECT_EQ(r.warnings[0].finding.call, "msleep(2)");
    EXPECT_FALSE(r.warnings[0].line_added);
    // A copy keeps its source.
    EXPECT_TRUE(overlay.count("drivers/foo/foo_irq.c") == 0 || overlay["drivers/foo/foo_irq.c"]);
}

TEST_F(SleepSources, SleepsThePatchDoesNotChangeStaySilent) {
    // foo_irq.c already has msleep(2); a patch that adds a variable sleep leaves it alone, and
    // the variable is silent, as checkpatch.pl is.
    InputReport r = check_fixture(rule_, "add_variable.patch");
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_TRUE(r.unresolved.empty());
}

TEST_F(SleepSources, AConstantThatCannotBeEvaluatedIsReportedWithWhy) {
    // foo_board.h is not in the tree: the semantic parse fails and FOO_BOARD_DELAY has no value.
    InputReport r = check_fixture(rule_, "unresolved_missing_header.patch");
    EXPECT_TRUE(r.warnings.empty());
    ASSERT_EQ(r.unresolved.size(), 1u);
    const Warning& u = r.unresolved[0];
    EXPECT_EQ(u.finding.call, "msleep(FOO_BOARD_DELAY)");
    EXPECT_EQ(u.input_line, 29u);
    EXPECT_NE(u.message.find("FOO_BOARD_DELAY"), std::string::npos) << u.message;
    EXPECT_NE(u.message.find("foo_board.h"), std::string::npos) << u.message;
    // The file parsed before the patch: the patch is what does not compile, not the build dir.
    EXPECT_NE(u.message.find("could not be evaluated: the patch does not compile: "
                             "drivers/foo/foo_irq.c:5: 'foo_board.h' file not found"),
              std::string::npos)
        << u.message;
    EXPECT_EQ(u.message.find("--build-dir"), std::string::npos) << u.message;
    // What else the failed parse hid is said too.
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_EQ(r.notes[0].rfind("calls through macros not checked: the patch does not compile: "
                               "drivers/foo/foo_irq.c:5: 'foo_board.h' file not found",
                               0),
              0u)
        << r.notes[0];
}

TEST_F(SleepSources, WithoutTheSemanticEngineAnEnumIsUnresolvedNotClean) {
    InputReport r = check_fixture(rule_, "add_enum.patch", /*semantic=*/false);
    EXPECT_TRUE(r.warnings.empty());
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_NE(r.unresolved[0].message.find("--lexical-only"), std::string::npos)
        << r.unresolved[0].message;
}

// Advice from the cause: the build dir is blamed only when the file does not parse before the
// patch either; a patch that breaks the parse is told so, and a name nothing defines is named.
class AdviceFromTheCause : public SleepSources {
  protected:
    void SetUp() override {
        write("include/linux/delay.h", "void msleep(unsigned int msecs);\n");
        write("drivers/x/x.h", "enum { X_POLL_MS = 5 };\n");
        write("drivers/x/x.c", "#include <linux/delay.h>\n#include \"x.h\"\n\n"
                               "void x_wait(void)\n{\n\tmsleep(20);\n}\n");
    }
    void write(const std::string& path, const std::string& text) {
        std::filesystem::create_directories((tree_.path() / path).parent_path());
        std::ofstream(tree_.path() / path) << text;
    }
    // The message of the one CHECK a patch replacing x.c's msleep(20) line gets.
    std::string check_replacing(const std::string& lines) {
        PatchChecker checker(rule_, CheckOptions{tree_.path().string(), "", true, 250});
        Overlay overlay;
        CheckInput input{"p", "p",
                         "--- a/drivers/x/x.c\n+++ b/drivers/x/x.c\n@@ -6 +6,2 @@\n"
                         "-\tmsleep(20);\n" +
                             lines,
                         tree_reader(tree_.path().string())};
        InputReport r = checker.check(input, overlay);
        EXPECT_EQ(r.unresolved.size(), 1u);
        return r.unresolved.empty() ? "" : r.unresolved.front().message;
    }
    TempDir tree_{"ksweep-check-advice"};
};

TEST_F(AdviceFromTheCause, APatchThatDoesNotCompileSaysSo) {
    const std::string m = check_replacing("+\tundeclared_var = 1;\n+\tmsleep(X_POLL_MS);\n");
    EXPECT_NE(m.find("X_POLL_MS could not be evaluated: the patch does not compile: "
                     "drivers/x/x.c:6: use of undeclared identifier 'undeclared_var'"),
              std::string::npos)
        << m;
    EXPECT_EQ(m.find("--build-dir"), std::string::npos) << m;
    EXPECT_EQ(m.find(tree_.path().string()), std::string::npos) << m; // no machine path
}

TEST_F(AdviceFromTheCause, ANameNothingDefinesIsNamed) {
    const std::string m = check_replacing("+\tmsleep(X_NOWHERE_DEFINED_MS);\n+\tmsleep(20);\n");
    EXPECT_NE(m.find("X_NOWHERE_DEFINED_MS could not be evaluated: X_NOWHERE_DEFINED_MS is not "
                     "defined in the tree (the headers drivers/x/x.c includes) nor by the patch"),
              std::string::npos)
        << m;
    EXPECT_EQ(m.find("--build-dir"), std::string::npos) << m;
}

TEST_F(AdviceFromTheCause, TheBuildDirIsAdvisedWhenTheFileDidNotParseBeforeEither) {
    write("drivers/x/x.c", "#include <linux/delay.h>\n#include <linux/not_here.h>\n\n"
                           "void x_wait(void)\n{\n\tmsleep(20);\n}\n");
    const std::string m = check_replacing("+\tmsleep(X_POLL_MS);\n+\tmsleep(20);\n");
    EXPECT_NE(m.find("the semantic parse of drivers/x/x.c failed (drivers/x/x.c:2: "
                     "'linux/not_here.h' file not found); give --build-dir DIR"),
              std::string::npos)
        << m;
}

// A header change that moves an untouched small sleep to another small value did not bring
// the sleep in: the gate is about what a patch adds, and that call was there.
TEST_F(SleepSources, AnUntouchedCallThatWasSmallAlreadyIsNotReported) {
    TempDir tree("ksweep-check-small");
    auto write = [&](const std::string& path, const std::string& text) {
        std::filesystem::create_directories((tree.path() / path).parent_path());
        std::ofstream(tree.path() / path) << text;
    };
    write("include/linux/delay.h", "void msleep(unsigned int msecs);\n");
    write("drivers/x/x.h", "#define X_MS 5\n");
    write("drivers/x/x.c", "#include <linux/delay.h>\n#include \"x.h\"\n\n"
                           "void x_wait(void)\n{\n\tmsleep(X_MS);\n}\n");
    PatchChecker checker(rule_, CheckOptions{tree.path().string(), "", true, 250});
    auto check = [&](const std::string& to) {
        Overlay overlay;
        CheckInput input{"p", "p",
                         "--- a/drivers/x/x.h\n+++ b/drivers/x/x.h\n@@ -1 +1 @@\n-#define X_MS "
                         "5\n+#define X_MS " +
                             to + "\n",
                         tree_reader(tree.path().string())};
        return checker.check(input, overlay);
    };
    EXPECT_TRUE(check("3").warnings.empty());
    EXPECT_TRUE(check("25").warnings.empty());
}

// A header constant that more files sleep on than the gate re-checks: it says so, it does not
// pass.
TEST_F(SleepSources, TooManyUsersOfAChangedHeaderIsACheck) {
    TempDir tree("ksweep-check-many");
    auto write = [&](const std::string& path, const std::string& text) {
        std::filesystem::create_directories((tree.path() / path).parent_path());
        std::ofstream(tree.path() / path) << text;
    };
    write("include/linux/delay.h", "void msleep(unsigned int msecs);\n");
    write("include/linux/x.h", "#define X_MS 25\n");
    for (int i = 0; i < 65; ++i)
        write("drivers/x/x" + std::to_string(i) + ".c",
              "#include <linux/delay.h>\n#include <linux/x.h>\nvoid x(void) { msleep(X_MS); }\n");
    PatchChecker checker(rule_, CheckOptions{tree.path().string(), "", true, 250});
    Overlay overlay;
    CheckInput input{"p", "p",
                     "--- a/include/linux/x.h\n+++ b/include/linux/x.h\n@@ -1 +1 @@\n"
                     "-#define X_MS 25\n+#define X_MS 5\n",
                     tree_reader(tree.path().string())};
    InputReport r = checker.check(input, overlay);
    ASSERT_EQ(r.unresolved.size(), 1u);
    EXPECT_EQ(r.unresolved[0].finding.file, "include/linux/x.h");
    EXPECT_EQ(r.unresolved[0].input_line, 5u);
    EXPECT_NE(r.unresolved[0].message.find("65 files in the tree may sleep on what this patch "
                                           "redefines (X_MS)"),
              std::string::npos)
        << r.unresolved[0].message;
}

} // namespace
} // namespace ksweep::check
