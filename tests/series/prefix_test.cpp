// Subject prefixes: the modal prefix of a file's recent subjects, level by level, and the
// MAINTAINERS-and-path fallback on the real 6.1 tree.
#include "require_env.h"
#include "series/maintainers.h"
#include "series/prefix.h"
#include "test_repo.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>

using namespace ksweep::series;
using namespace ksweep::git;
using namespace ksweep::test;

namespace {

TEST(SubjectTags, SplitsTagsAndSkipsRevertsAndMailPrefixes) {
    EXPECT_EQ(subject_tags("ACPI: OSL: Use usleep_range() in acpi_os_sleep()"),
              (std::vector<std::string>{"ACPI", "OSL"}));
    EXPECT_EQ(subject_tags("[PATCH v2] drm/i915: Fix it"), (std::vector<std::string>{"drm/i915"}));
    EXPECT_TRUE(subject_tags("Revert \"tpm: Fix it\"").empty());
    EXPECT_TRUE(subject_tags("Fix the thing").empty());
    // "Note: " inside a sentence is not a tag: the first part has spaces.
    EXPECT_TRUE(subject_tags("Make it work again: really").empty());
}

TEST(ModalPrefix, FirstLevelByCountDeeperLevelsByMajority) {
    EXPECT_EQ(modal_prefix({"ACPI: OSL: a", "ACPI: OSL: b", "ACPI: c", "PM: d"}), "ACPI: OSL");
    EXPECT_EQ(modal_prefix({"tpm: tpm_tis: a", "tpm: b", "tpm: c", "tpm: tpm_crb: d"}), "tpm");
    // Ties go to the most recent subject (the walk returns newest first).
    EXPECT_EQ(modal_prefix({"tpm: a", "tpm/atmel: b"}), "tpm");
    EXPECT_EQ(modal_prefix({"Fix a", "Revert \"x: y\""}), std::nullopt);
}

TEST(HistorySubjects, PathLimitedAndCapped) {
    LibGit2 lib;
    TempDir tmp;
    std::string repo = tmp.path() + "/r";
    init_repo(repo);
    write_file(repo + "/a.c", "1\n");
    write_file(repo + "/b.c", "1\n");
    run_git(repo, "add -A");
    run_git(repo, "commit -q -m 'base: import'");
    for (int i = 0; i < 5; ++i) {
        write_file(repo + "/a.c", std::to_string(i) + "\n");
        run_git(repo, "commit -q -am 'a: change " + std::to_string(i) + "'");
        write_file(repo + "/b.c", std::to_string(i) + "\n");
        run_git(repo, "commit -q -am 'b: change " + std::to_string(i) + "'");
    }
    git_repository* raw = nullptr;
    check(git_repository_open(&raw, repo.c_str()), "open");
    Repository r(raw);
    git_oid head;
    check(git_reference_name_to_id(&head, r.get(), "HEAD"), "HEAD");
    auto subjects = history_subjects(r.get(), head, {"a.c"});
    ASSERT_EQ(subjects.size(), 5u); // the root commit has no parent to compare with
    EXPECT_EQ(subjects.front(), "a: change 4");
    HistoryLimits limits;
    limits.max_commits = 4;
    EXPECT_EQ(history_subjects(r.get(), head, {"a.c"}, limits).size(), 2u);
    limits.max_commits = 1000;
    limits.max_subjects = 3;
    EXPECT_EQ(history_subjects(r.get(), head, {"a.c"}, limits).size(), 3u);
}

std::string tree_6_1() {
    if (const char* t = std::getenv("KSWEEP_TREE_6_1"))
        return t;
    std::istringstream in(read_file(std::string(std::getenv("HOME")) + "/.cache/ksweep/env"));
    for (std::string line; std::getline(in, line);)
        if (line.rfind("KSWEEP_TREE_6_1=", 0) == 0)
            return line.substr(16);
    return "";
}

TEST(PrefixFromMaintainers, WhatTheTpmSubsystemWrites) {
    std::string tree = tree_6_1();
    if (tree.empty() || !std::filesystem::exists(tree + "/MAINTAINERS"))
        KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
    Maintainers m = Maintainers::load(tree);
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/char/tpm/tpm_i2c_nuvoton.c", "tpm_i2c_nuvoton"),
              "tpm: tpm_i2c_nuvoton");
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/char/tpm/tpm-chip.c", "tpm"), "tpm");
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/char/tpm/st33zp24/st33zp24.c", "tpm_st33zp24"),
              "tpm: st33zp24");
    // drivers/i2c/busses/ is the I2C host drivers' section: "busses" is no subsystem name, and
    // the module's "i2c-" repeats the subsystem (upstream writes "i2c: amd8111: ...").
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/i2c/busses/i2c-amd8111.c", "i2c-amd8111"),
              "i2c: amd8111");
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/i2c/algos/i2c-algo-pca.c", "i2c-algo-pca"),
              "i2c: algo-pca");
    // Input is in rules/subject_prefixes.yaml: upstream writes "Input: xpad - ...", not the
    // path heuristic's "input: xpad" (still what prefix_from_path() gives).
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/input/joystick/xpad.c", "xpad"), "Input: xpad -");
    EXPECT_EQ(prefix_from_path(m, "drivers/input/joystick/xpad.c", "xpad"), "input: xpad");
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/char/apm-emulation.c", "apm-emulation"),
              "char: apm-emulation");
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/char/tpm/tpm_nsc.c", ""), "tpm: tpm_nsc");
}

} // namespace

namespace {

using namespace ksweep::series;

// Input's "xpad -" and hwmon's "(lm90)" end a prefix of history's too.
TEST(PrefixTest, HistoryPrefixesKeepTheirOwnSeparators) {
    EXPECT_EQ(subject_tags("Input: xpad - add support for X"),
              (std::vector<std::string>{"Input", "xpad -"}));
    EXPECT_EQ(subject_tags("hwmon: (lm90) Add support for ADT7481"),
              (std::vector<std::string>{"hwmon", "(lm90)"}));
    EXPECT_EQ(modal_prefix({"Input: xpad - add a", "Input: xpad - fix b", "Input: c"}),
              "Input: xpad -");
}

SubjectTable input_table() {
    return parse_subject_table("prefixes:\n"
                               "  - {path: drivers/input/, subject: \"Input: {driver} -\", "
                               "verb: lower}\n",
                               "t.yaml");
}

// A local commit or two must not decide a subsystem's prefix: the table does, and says why.
TEST(PrefixTest, HistoryDecidesOnlyWithEnoughCommits) {
    TempDir dir;
    write_file(dir.path() + "/MAINTAINERS", "CHAR\nM:\tA <a@example.org>\nF:\tdrivers/char/\n");
    const Maintainers m = Maintainers::load(dir.path());
    const SubjectTable table = input_table();
    std::vector<std::string> one = {"input: my local change"};
    PrefixChoice c = choose_prefix(&one, m, "drivers/input/misc/foo.c", "foo", table);
    EXPECT_EQ(c.prefix, "Input: foo -");
    EXPECT_TRUE(c.lower_verb);
    EXPECT_EQ(c.source, "table t.yaml:2 (history: 1 of 1 commit touching these files writes "
                        "'input: ', fewer than 3)");

    std::vector<std::string> three(3, "Input: foo - Fix a thing");
    c = choose_prefix(&three, m, "drivers/input/misc/foo.c", "foo", table,
                      "drivers/input/misc/foo.c");
    EXPECT_EQ(c.prefix, "Input: foo -");
    EXPECT_FALSE(c.lower_verb); // as history writes it
    EXPECT_EQ(c.source, "history (3 of 3 commits touching drivers/input/misc/foo.c)");

    c = choose_prefix(nullptr, m, "drivers/char/x.c", "x", table);
    EXPECT_EQ(c.source, "MAINTAINERS and path (no history: a scratch repository)");
    EXPECT_EQ(with_verb_case("Use usleep_range()", true), "use usleep_range()");
}

// Many commits touching a file decide nothing unless enough of them agree: five commits of five
// different conventions are not one.
TEST(SeriesPrefixSource, HistoryNeedsThreeCommitsAgreeingNotJustThreeTouching) {
    TempDir dir;
    write_file(dir.path() + "/MAINTAINERS", "TPM\nM:\tA <a@example.org>\nF:\tdrivers/char/tpm/\n");
    const Maintainers m = Maintainers::load(dir.path());
    const SubjectTable table = parse_subject_table("prefixes: []\n", "t.yaml");
    const std::string file = "drivers/char/tpm/tpm_nsc.c";
    std::vector<std::string> mixed = {"tpm: tpm_nsc: Fix a", "treewide: Fix b",
                                      "tpm: tpm_nsc: Fix c", "char: Fix d", "Merge branch 'x'"};
    PrefixChoice c = choose_prefix(&mixed, m, file, "tpm_nsc", table, file);
    EXPECT_EQ(c.prefix, "tpm: tpm_nsc"); // from the path: history did not decide
    EXPECT_EQ(c.agreeing, 2u);
    EXPECT_EQ(c.source, "MAINTAINERS and path (history: 2 of 5 commits touching "
                        "drivers/char/tpm/tpm_nsc.c write 'tpm: tpm_nsc: ', fewer than 3)");

    mixed.push_back("tpm: tpm_nsc: Fix e");
    mixed.push_back("tpm: Fix f"); // agrees with "tpm" only, not with the modal "tpm: tpm_nsc"
    c = choose_prefix(&mixed, m, file, "tpm_nsc", table, file);
    EXPECT_EQ(c.source, "history (3 of 7 commits touching drivers/char/tpm/tpm_nsc.c)");
    EXPECT_EQ(subjects_agreeing(mixed, "tpm"), 4u);

    std::vector<std::string> none;
    c = choose_prefix(&none, m, file, "tpm_nsc", table, file);
    EXPECT_EQ(c.source, "MAINTAINERS and path (history: no commit touches "
                        "drivers/char/tpm/tpm_nsc.c)");
    std::vector<std::string> untagged(4, "Fix a thing");
    c = choose_prefix(&untagged, m, file, "tpm_nsc", table, "these files");
    EXPECT_EQ(c.source, "MAINTAINERS and path (history: none of 4 commits touching these files "
                        "has a prefix)");

    EXPECT_EQ(describe_paths({"drivers/char/tpm/a.c", "drivers/char/tpm/st33zp24/b.c"}),
              "2 files in drivers/char/tpm/");
    EXPECT_EQ(describe_paths({"a.c", "b/c.c"}), "2 files");
    EXPECT_EQ(prefix_as_written("Input: xpad -"), "Input: xpad - ");
    EXPECT_EQ(prefix_as_written("tpm"), "tpm: ");
}

TEST(PrefixTest, TableVerbMustBeLowerOrUpper) {
    EXPECT_THROW(
        parse_subject_table("prefixes:\n  - {path: a/, subject: \"a:\", verb: small}\n", "t.yaml"),
        SubjectTableError);
}

} // namespace
