// `ksweep check` as CI runs it: the binary on the fixture tree's patches, through a file, a
// mailbox, stdin and a git range, with its exit status as the verdict.
#include "json_fields.h"
#include "test_repo.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

const std::string kTree = std::string(KSWEEP_FIXTURES) + "/check/tree";
const std::string kPatches = std::string(KSWEEP_FIXTURES) + "/check/patches";

ksweep::test::CommandResult check(const std::string& args) {
    return run(std::string(KSWEEP_BINARY) + " check --tree " + quote(kTree) + " " + args,
               /*merge_stderr=*/false);
}

// A git repository of the fixture tree with series.mbox applied on top: HEAD~2 is the tree.
std::string repo_with_the_series(const ksweep::test::TempDir& dir) {
    std::string repo = dir.path() + "/repo";
    fs::copy(kTree, repo, fs::copy_options::recursive);
    ksweep::test::init_repo(repo);
    auto am = run("cd " + quote(repo) + " && git add -A && git commit -qm base && git am -q " +
                  quote(kPatches + "/series.mbox"));
    EXPECT_EQ(am.status, 0) << am.output;
    return repo;
}

TEST(CheckCli, ExitStatusIsTheVerdict) {
    EXPECT_EQ(check(quote(kPatches + "/add_literal.patch")).status, 1);
    EXPECT_EQ(check(quote(kPatches + "/add_enum.patch")).status, 1);
    EXPECT_EQ(check(quote(kPatches + "/add_25.patch")).status, 0);
    EXPECT_EQ(check(quote(kPatches + "/remove_msleep.patch")).status, 0);
    EXPECT_EQ(check(quote(kPatches + "/move_msleep.patch")).status, 0);
    EXPECT_EQ(check(quote(kPatches + "/malformed.patch")).status, 2);
    EXPECT_EQ(check(quote(kPatches + "/does_not_apply.patch")).status, 2);
    EXPECT_EQ(check(quote(kPatches + "/no_such.patch")).status, 2);
}

TEST(CheckCli, BadInputSaysWhy) {
    auto r = run(std::string(KSWEEP_BINARY) + " check --tree " + quote(kTree) + " " +
                     quote(kPatches + "/does_not_apply.patch") + " 2>&1",
                 false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("drivers/foo/foo.c: hunk #1 (patch line 14) does not apply"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("total:"), std::string::npos) << "no verdict on a bad patch";
}

TEST(CheckCli, ReadsStdinLikeCheckpatch) {
    auto r = check("--terse - < " + quote(kPatches + "/add_literal.patch"));
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.output.rfind("-:18: WARNING: msleep(3) < 20ms", 0), 0u) << r.output;
    // Default form: named after the Subject, as checkpatch.pl names stdin.
    auto full = check("- < " + quote(kPatches + "/add_25.patch"));
    EXPECT_NE(full.output.find("\"[PATCH] foo: sleep longer between polls\" has no small "
                               "sleeps (msleep_small, short_jiffy_sleeps)"),
              std::string::npos)
        << full.output;
}

TEST(CheckCli, SeriesGivenAsFilesAppliesInOrder) {
    // Split the fixture mailbox into two patch files: patch 2 only applies after patch 1.
    ksweep::test::TempDir dir;
    std::string mbox = ksweep::test::read_file(kPatches + "/series.mbox");
    size_t second = mbox.find("From 2222222222222222222222222222222222222222");
    ksweep::test::write_file(dir.path() + "/0001.patch", mbox.substr(0, second));
    ksweep::test::write_file(dir.path() + "/0002.patch", mbox.substr(second));
    auto r = check("--terse " + quote(dir.path() + "/0001.patch") + " " +
                   quote(dir.path() + "/0002.patch"));
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.output.find("0002.patch:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("FOO_RETRY_MS is 7"), std::string::npos) << r.output;
}

TEST(CheckCli, GitRangeChecksEachCommitAgainstItsParent) {
    ksweep::test::TempDir dir;
    const std::string repo = repo_with_the_series(dir);
    auto r = run(
        std::string(KSWEEP_BINARY) + " check --tree " + quote(repo) + " --git HEAD~2..HEAD", false);
    EXPECT_EQ(r.status, 1) << r.output;
    // One block per commit, as checkpatch.pl -g prints them.
    EXPECT_NE(r.output.find("(\"foo: name the retry delay\") has no small sleeps"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("(\"foo: retry with the named delay\") has small sleeps"),
              std::string::npos)
        << r.output;
    auto one =
        run(std::string(KSWEEP_BINARY) + " check --tree " + quote(repo) + " --git HEAD~1", false);
    EXPECT_EQ(one.status, 0) << one.output; // patch 1 alone adds no call
}

// A directory written by `ksweep series`: the cover letter is skipped with a note on stderr,
// every patch after it is checked, each on top of the ones before.
TEST(CheckCli, SeriesDirectoryWithItsCoverLetter) {
    const std::string series = std::string(KSWEEP_FIXTURES) + "/check/series";
    auto r = run(std::string(KSWEEP_BINARY) + " check --tree " + quote(kTree) + " --format json " +
                     quote(series),
                 false);
    EXPECT_EQ(r.status, 1) << r.output;
    const ksweep::Json parsed = ksweep::test::parse_json(r.output);
    ASSERT_TRUE(parsed.is_object()) << r.output;
    ASSERT_TRUE(parsed.contains("inputs")) << r.output;
    const ksweep::Json& inputs = parsed.at("inputs");
    ASSERT_EQ(inputs.size(), 3u);
    EXPECT_EQ(ksweep::test::json_integer(inputs[0], "patches"), 0);
    EXPECT_EQ(ksweep::test::json_integer(inputs[1], "patches"), 1);
    EXPECT_EQ(ksweep::test::json_integer(inputs[2], "patches"), 1);
    EXPECT_EQ(inputs[2].at("warnings").size(), 1u);

    auto text = run(std::string(KSWEEP_BINARY) + " check --tree " + quote(kTree) + " " +
                        quote(series) + " 2>&1 >/dev/null",
                    false);
    EXPECT_NE(text.output.find("0000-cover-letter.patch: cover letter ([PATCH 0/2]), no diff: "
                               "skipped"),
              std::string::npos)
        << text.output;
}

// The same series as one mailbox on stdin, cover letter first.
TEST(CheckCli, MailboxOfASeriesWithItsCoverLetter) {
    auto r = check("--format json - < " + quote(kPatches + "/series_with_cover.mbox"));
    EXPECT_EQ(r.status, 1) << r.output;
    const ksweep::Json parsed = ksweep::test::parse_json(r.output);
    ASSERT_TRUE(parsed.is_object()) << r.output;
    const ksweep::Json& inputs = parsed.at("inputs");
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(ksweep::test::json_integer(inputs[0], "patches"), 2);
    EXPECT_EQ(inputs[0].at("warnings").size(), 1u);
}

// git format-patch --cover-letter --stdout: a mailbox git itself wrote.
TEST(CheckCli, FormatPatchStdoutWithACoverLetter) {
    ksweep::test::TempDir dir;
    const std::string repo = repo_with_the_series(dir);
    auto r = run("cd " + quote(repo) + " && git format-patch --cover-letter --stdout HEAD~2 | " +
                     std::string(KSWEEP_BINARY) + " check --tree " + quote(kTree) + " --terse -",
                 false);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("FOO_RETRY_MS is 7"), std::string::npos) << r.output;
}

TEST(CheckCli, JsonAndSarifParse) {
    for (const char* format : {"json", "sarif"}) {
        auto r = check(std::string("--format ") + format + " " +
                       quote(kPatches + "/add_header_macro.patch"));
        EXPECT_EQ(r.status, 1);
        ASSERT_TRUE(ksweep::test::parse_json(r.output).is_object()) << format << ": " << r.output;
    }
}

// A copy of the fixture tree that already holds `patch` (applied with git apply): the tree a CI
// job checks out at the tip of a branch.
std::string tree_holding(const ksweep::test::TempDir& dir, const std::string& patch) {
    std::string copy = dir.path() + "/" + fs::path(patch).stem().string();
    fs::copy(kTree, copy, fs::copy_options::recursive);
    auto applied = run("cd " + quote(copy) + " && git apply " + quote(patch));
    EXPECT_EQ(applied.status, 0) << patch << ": " << applied.output;
    return copy;
}

// checkpatch.pl checks a mail the same way in either state of the tree, and so does the gate:
// every fixture patch gets the same exit status and report from the tree it applies to and
// from a copy that already holds it (outside git: its pre-image from the hunks in reverse),
// and the state found is said on stderr.
TEST(CheckCli, SameVerdictsOnTheBaseTreeAndOnATreeThatHoldsThePatch) {
    ksweep::test::TempDir dir;
    size_t compared = 0;
    for (const auto& e : fs::directory_iterator(kPatches)) {
        const std::string patch = e.path().string();
        if (e.path().extension() != ".patch" || patch.ends_with("malformed.patch") ||
            patch.ends_with("does_not_apply.patch"))
            continue;
        auto base = check("--terse " + quote(patch));
        ASSERT_NE(base.status, 2) << patch << ": " << base.output;
        const std::string holds = tree_holding(dir, patch);
        auto r = run(std::string(KSWEEP_BINARY) + " check " + quote(holds) + " --terse " +
                         quote(patch) + " 2>" + quote(dir.path() + "/stderr"),
                     false);
        EXPECT_EQ(r.status, base.status) << patch << "\n" << r.output;
        EXPECT_EQ(r.output, base.output) << patch;
        const std::string said = ksweep::test::read_file(dir.path() + "/stderr");
        EXPECT_NE(said.find("tree state: the tree already holds the patches ("), std::string::npos)
            << patch << "\n"
            << said;
        EXPECT_TRUE(said.find("): checked against their pre-image from the hunks applied in "
                              "reverse") != std::string::npos ||
                    said.find("): checked against their pre-image without the files they add") !=
                        std::string::npos)
            << patch << "\n"
            << said;
        ++compared;
    }
    EXPECT_GE(compared, 20u);
}

// The README's CI recipe on a branch: format-patch of the commits a tree at their tip already
// holds, checked there (the pre-image from git's blobs) and again on their base: one verdict.
TEST(CheckCli, FormatPatchAtTheTipAndOnTheBaseGiveTheSameVerdict) {
    ksweep::test::TempDir dir;
    const std::string repo = repo_with_the_series(dir);
    const std::string mbox = dir.path() + "/series.mbox";
    ASSERT_EQ(
        run("cd " + quote(repo) + " && git format-patch --stdout HEAD~2.. > " + quote(mbox)).status,
        0);
    const std::string gate =
        std::string(KSWEEP_BINARY) + " check " + quote(repo) + " --terse - < " + quote(mbox);
    auto tip = run(gate + " 2>" + quote(dir.path() + "/tip.err"), false);
    EXPECT_EQ(tip.status, 1) << tip.output;
    EXPECT_NE(tip.output.find("FOO_RETRY_MS is 7"), std::string::npos) << tip.output;
    const std::string said = ksweep::test::read_file(dir.path() + "/tip.err");
    EXPECT_NE(said.find("is at the post-image its index line names): checked against their "
                        "pre-image from git (the blobs the index lines name)"),
              std::string::npos)
        << said;

    ksweep::test::run_git(repo, "checkout -q HEAD~2");
    auto base = run(gate + " 2>" + quote(dir.path() + "/base.err"), false);
    EXPECT_EQ(base.status, tip.status);
    EXPECT_EQ(base.output, tip.output);
    EXPECT_NE(ksweep::test::read_file(dir.path() + "/base.err")
                  .find("tree state: the patches apply to the tree, their base"),
              std::string::npos);
}

// A patch that neither applies nor comes out again is still bad input: exit 2, both reasons.
TEST(CheckCli, APatchInNeitherStateSaysBoth) {
    auto r = run(std::string(KSWEEP_BINARY) + " check " + quote(kTree) + " " +
                     quote(kPatches + "/does_not_apply.patch") + " 2>&1",
                 false);
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("does not apply"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("nor does the tree hold the patches already"), std::string::npos)
        << r.output;
}

} // namespace
