// What a patch redefines, read from the two versions of a file without compiling either, and
// where a header's redefinitions can be seen (tests/fixtures/check/tree: foo.h and its users).
#include "check/definitions.h"
#include "check/dependents.h"
#include "check_test_support.h"

namespace ksweep::check {
namespace {

TEST(Definitions, ChangedNamesAreMacrosEnumeratorsAndWhatNamesThem) {
    const Definitions before = definitions_in("#define A 25\n#define B (A * 2)\n#define C 1\n"
                                              "enum e { E0 = 1, E1, E2 };\nenum f { F0 = 3 };\n");
    const Definitions after =
        definitions_in("#define A 5 /* ms */\n#define B (A * 2)\n#define C 1\n"
                       "enum e { E0 = 1, EX, E1, E2 };\nenum f { F0 = 3 };\n"
                       "#define D 7\n");
    // A changed, B follows it, C did not; E1 and E2 shift with the new EX; D is new.
    EXPECT_EQ(changed_names(before, after),
              (std::set<std::string>{"A", "B", "D", "E0", "E1", "E2", "EX"}));
    EXPECT_NE(before.context, after.context);
    // A comment is not a change.
    EXPECT_EQ(definitions_in("#define A 25 /* ms */\nint x;\n").context,
              definitions_in("#define A 25\nint y;\n").context);
}

TEST(Dependents, APrivateHeaderIsSeenInItsDirectoryAPublicOneEverywhere) {
    EXPECT_EQ(header_scope("drivers/char/tpm/tpm.h"), "drivers/char/tpm");
    EXPECT_EQ(header_scope("include/linux/delay.h"), "");
    EXPECT_EQ(header_scope("arch/x86/include/asm/delay.h"), "");
    EXPECT_EQ(header_scope("arch/x86/kvm/x86.h"), "arch/x86/kvm");
}

TEST(Dependents, FilesThatNameAChangedConstantAndCanSleepOnIt) {
    TreeState state(testing::kTree, {}, tree_reader(testing::kTree));
    // foo.c names no FOO_WAIT_MS; foo_irq.c does and calls msleep(); so does foo.h itself (the
    // checker leaves out the files the patch changes: they are checked as such).
    Dependents d =
        find_dependents(state, testing::kTree, {"drivers/foo/foo.h"}, {"FOO_WAIT_MS"}, {"msleep"});
    EXPECT_EQ(d.files, (std::vector<std::string>{"drivers/foo/foo.h", "drivers/foo/foo_irq.c"}));
    EXPECT_EQ(d.scope, (std::vector<std::string>{"drivers/foo"}));
    // A file the series added is searched too, one it deleted is not.
    TreeState later(testing::kTree,
                    {{"drivers/foo/new.c", "void f(void) { msleep(FOO_WAIT_MS); }\n"},
                     {"drivers/foo/foo_irq.c", std::nullopt}},
                    tree_reader(testing::kTree));
    EXPECT_EQ(
        find_dependents(later, testing::kTree, {"drivers/foo/foo.h"}, {"FOO_WAIT_MS"}, {"msleep"})
            .files,
        (std::vector<std::string>{"drivers/foo/foo.h", "drivers/foo/new.c"}));
}

TEST(Dependents, AMacroDefinedWithAChangedNameCarriesItToItsUsers) {
    // user.c never names FOO_WAIT_MS; it calls wait.h's foo_wait_poll(), which does.
    TreeState state(
        testing::kTree,
        {{"drivers/foo/wait.h", "#define foo_wait_poll() msleep(FOO_WAIT_MS)\n"},
         {"drivers/foo/user.c", "#include \"wait.h\"\nvoid g(void) { foo_wait_poll(); }\n"}},
        tree_reader(testing::kTree));
    Dependents d =
        find_dependents(state, testing::kTree, {"drivers/foo/foo.h"}, {"FOO_WAIT_MS"}, {"msleep"});
    EXPECT_TRUE(d.names.count("foo_wait_poll"));
    EXPECT_NE(std::find(d.files.begin(), d.files.end(), "drivers/foo/user.c"), d.files.end());
}

} // namespace
} // namespace ksweep::check
