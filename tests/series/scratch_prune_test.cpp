// Scratch repositories: keyed by the tree's content, never its path or name; the base and each
// run's commits written as packs, no loose objects; old ksweep/* branches pruned to
// kScratchBranchesKept after a series run, while a user's own repository keeps every branch.
#include "git/repository.h"
#include "git/scratch_prune.h"
#include "series/series.h"
#include "test_repo.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <sstream>
#include <type_traits>

using namespace ksweep::git;

using namespace ksweep;
using namespace ksweep::series;
using namespace ksweep::test;

namespace {

// Only open_series_repo vouches for a scratch repository: a user's cannot be wrapped by hand.
static_assert(!std::is_constructible_v<ScratchRepository, git_repository*>);

constexpr long long kNow = 1790000000;
constexpr long long kDay = 86400;

// One msleep(1) in drivers/misc/foo.c and what the rule makes of it.
void write_tree_files(const std::string& dir) {
    write_file(dir + "/MAINTAINERS", "MISC\nM:\tMisc Maintainer <misc@example.org>\n"
                                     "S:\tMaintained\nF:\tdrivers/misc/\n");
    write_file(dir + "/drivers/misc/foo.c", "static void foo(void)\n{\n\tmsleep(1);\n}\n");
}

FixResult foo_fix() {
    FileFix f;
    f.file = "drivers/misc/foo.c";
    f.original = "static void foo(void)\n{\n\tmsleep(1);\n}\n";
    f.fixed = "static void foo(void)\n{\n\tusleep_range(1000, 1300);\n}\n";
    f.slack_us = 300;
    SiteOutcome site;
    site.fixed = true;
    site.how = "literal";
    Finding& at = site.finding;
    at.file = f.file;
    at.line = 3;
    at.function = "foo";
    at.callee = "msleep";
    at.call = "msleep(1)";
    at.argument = "1";
    at.value = 1;
    at.predicted_sleep_ms = 12;
    at.actionable = true;
    f.sites.push_back(site);
    FixResult fix;
    fix.scan.hz = 250;
    fix.scan.kernel = KernelVersion{6, 1, 0};
    fix.files.push_back(f);
    return fix;
}

// A branch `name` one commit above `base`, committed at `when`.
void add_branch(git_repository* repo, const git_oid& base, const std::string& name,
                long long when) {
    git_signature* raw = nullptr;
    check(git_signature_new(&raw, "Old Run", "old@example.org", when, 0), "git_signature_new");
    Signature sig(raw);
    Commit parent = lookup_commit(repo, base);
    Tree tree = commit_tree(parent.get());
    const git_commit* parents[] = {parent.get()};
    git_oid id;
    check(git_commit_create(&id, repo, nullptr, sig.get(), sig.get(), nullptr, name.c_str(),
                            tree.get(), 1, parents),
          "git_commit_create");
    Commit tip = lookup_commit(repo, id);
    git_reference* ref = nullptr;
    check(git_branch_create(&ref, repo, name.c_str(), tip.get(), 0), "git_branch_create");
    git_reference_free(ref);
}

std::string old_name(int n) {
    std::ostringstream s;
    s << "ksweep/msleep_small-old-" << (n < 10 ? "0" : "") << n;
    return s.str();
}

std::string refs(const std::string& git_dir, const std::string& under) {
    return run("git --git-dir=" + quote(git_dir) +
               " for-each-ref --format='%(refname) %(objectname)' " + under)
        .output;
}

class ScratchPruneTest : public ::testing::Test {
  protected:
    void SetUp() override {
        tree = tmp.path() + "/linux-source-6.1";
        write_tree_files(tree);
        opts.tree = tree;
        opts.out_dir = tmp.path() + "/out";
        opts.cache_dir = tmp.path() + "/cache";
        opts.now = kNow;
        opts.signoff = "Test Maintainer <test@example.org>";
        opts.signature = "ksweep test";
    }

    LibGit2 lib;
    TempDir tmp;
    std::string tree;
    SeriesOptions opts;
    Rule rule = load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
};

TEST_F(ScratchPruneTest, SeriesRunKeepsTheNewestTwentyIncludingItsOwn) {
    std::string git_dir, base_refs;
    {
        SeriesRepo repo = open_series_repo(tree, opts.cache_dir);
        ASSERT_TRUE(repo.owned);
        git_dir = repo.git_dir;
        // 25 earlier runs, a day apart, and branches that are not ksweep/*.
        for (int n = 1; n <= 25; ++n)
            add_branch(repo.repo.get(), repo.base, old_name(n), kNow - (26 - n) * kDay);
        add_branch(repo.repo.get(), repo.base, "notes", kNow - 90 * kDay);
        add_branch(repo.repo.get(), repo.base, "ksweep-notes", kNow - 90 * kDay);
        base_refs = refs(git_dir, "refs/ksweep/");
    }
    ASSERT_NE(base_refs.find("refs/ksweep/base/"), std::string::npos);

    SeriesResult r = write_series(rule, foo_fix(), opts);

    ASSERT_TRUE(r.scratch);
    EXPECT_EQ(r.repository, git_dir);
    EXPECT_EQ(r.pruned_branches, 6u);
    std::string expected = "refs/heads/ksweep/msleep_small-20260921\n"; // refname order
    for (int n = 7; n <= 25; ++n)
        expected += "refs/heads/" + old_name(n) + "\n";
    EXPECT_EQ(run("git --git-dir=" + quote(git_dir) +
                  " for-each-ref --format='%(refname)' refs/heads/ksweep/")
                  .output,
              expected);
    std::string heads = refs(git_dir, "refs/heads/");
    EXPECT_NE(heads.find("refs/heads/notes "), std::string::npos) << heads;
    EXPECT_NE(heads.find("refs/heads/ksweep-notes "), std::string::npos) << heads;
    EXPECT_EQ(refs(git_dir, "refs/ksweep/"), base_refs);

    // At the limit nothing more goes: the next run prunes only one to make room for itself.
    opts.force = true;
    EXPECT_EQ(write_series(rule, foo_fix(), opts).pruned_branches, 1u);
    heads = refs(git_dir, "refs/heads/");
    EXPECT_EQ(heads.find("refs/heads/" + old_name(7) + " "), std::string::npos) << heads;
    EXPECT_NE(heads.find("refs/heads/ksweep/msleep_small-20260921-2 "), std::string::npos);
}

TEST_F(ScratchPruneTest, NeverTheBranchJustMadeAndTiesGoByName) {
    SeriesRepo repo = open_series_repo(tree, opts.cache_dir);
    ASSERT_TRUE(repo.owned);
    for (int n = 1; n <= 25; ++n) // 01 and 02 committed at the same second, as are 03 and 04
        add_branch(repo.repo.get(), repo.base, old_name(n), kNow + (n + 1) / 2);

    // The oldest is the one "just made" (its commit date came from a clock that was behind).
    EXPECT_EQ(prune_scratch_branches(*repo.owned, {old_name(1)}), 5u);
    std::string left = refs(repo.git_dir, "refs/heads/");
    EXPECT_NE(left.find(old_name(1) + " "), std::string::npos);
    for (int n = 2; n <= 6; ++n)
        EXPECT_EQ(left.find(old_name(n) + " "), std::string::npos) << n;
    for (int n = 7; n <= 25; ++n)
        EXPECT_NE(left.find(old_name(n) + " "), std::string::npos) << n;
    EXPECT_EQ(prune_scratch_branches(*repo.owned, {}), 0u);
}

TEST_F(ScratchPruneTest, UserRepositoryKeepsEveryBranch) {
    init_repo(tree);
    run_git(tree, "add -A");
    run_git(tree, "commit -q -m Import");
    ASSERT_EQ(run("cd " + quote(tree) +
                  " && for n in $(seq 1 30); do git branch ksweep/msleep_small-old-$n || exit 1; "
                  "done")
                  .status,
              0);
    EXPECT_FALSE(open_series_repo(tree, opts.cache_dir).owned);

    SeriesResult r = write_series(rule, foo_fix(), opts);

    EXPECT_FALSE(r.scratch);
    EXPECT_EQ(r.pruned_branches, 0u);
    std::string heads = run_git(tree, "for-each-ref --format='%(refname)' refs/heads/ksweep/");
    EXPECT_EQ(std::count(heads.begin(), heads.end(), '\n'), 31) << heads;
}

size_t loose_objects(const std::string& git_dir) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& dir : std::filesystem::directory_iterator(git_dir + "/objects", ec))
        if (dir.path().filename().string().size() == 2)
            for ([[maybe_unused]] const auto& object : std::filesystem::directory_iterator(dir))
                ++n;
    return n;
}

// What `git fsck --strict` finds wrong in a scratch repository beyond the base's files that no
// run needed (missing blobs, by design: src/git/base_blobs.h).
std::string fsck_problems(const std::string& git_dir) {
    return run("git --git-dir=" + quote(git_dir) + " fsck --strict --no-dangling 2>&1 | " +
               "grep -v -e '^missing blob ' -e '^broken link from  *tree ' -e '^  *to  *blob ' " +
               "-e '^notice: HEAD points to an unborn branch'")
        .output;
}

size_t packs(const std::string& git_dir) {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(git_dir + "/objects/pack"))
        n += e.path().extension() == ".pack";
    return n;
}

TEST_F(ScratchPruneTest, KeyedByContentAndWrittenAsPacks) {
    // Two directories with the same files are one tree object; a symlink is a link.
    write_file(tree + "/drivers/twin/a/x.c", "int x;\n");
    write_file(tree + "/drivers/twin/b/x.c", "int x;\n");
    std::filesystem::create_symlink("a/x.c", tree + "/drivers/twin/link.c");
    SeriesResult r = write_series(rule, foo_fix(), opts);
    ASSERT_TRUE(r.scratch);
    EXPECT_EQ(std::filesystem::path(r.repository).parent_path(),
              std::filesystem::path(opts.cache_dir) / "scratch");
    EXPECT_EQ(r.repository.find("linux-source"), std::string::npos) << r.repository;
    EXPECT_EQ(loose_objects(r.repository), 0u);
    EXPECT_EQ(packs(r.repository), 2u); // the base, then the run's commits
    const std::string gd = "git --git-dir=" + quote(r.repository) + " ";
    EXPECT_EQ(fsck_problems(r.repository), "");
    EXPECT_EQ(run(gd + "show " + r.series[0].base + ":drivers/misc/foo.c").output,
              foo_fix().files[0].original);
    EXPECT_EQ(run(gd + "show " + r.series[0].branch + ":drivers/misc/foo.c").output,
              foo_fix().files[0].fixed);
    EXPECT_EQ(run(gd + "rev-parse " + r.series[0].base + ":drivers/twin/a").output,
              run(gd + "rev-parse " + r.series[0].base + ":drivers/twin/b").output);
    EXPECT_EQ(run(gd + "ls-tree " + r.series[0].base + " drivers/twin/link.c").output.substr(0, 6),
              "120000");

    // The same files under another path and name: the same repository and base.
    const std::string copy = tmp.path() + "/elsewhere/another-checkout";
    std::filesystem::create_directories(tmp.path() + "/elsewhere");
    std::filesystem::copy(tree, copy,
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::copy_symlinks);
    opts.tree = copy;
    opts.out_dir = tmp.path() + "/out-copy";
    SeriesResult shared = write_series(rule, foo_fix(), opts);
    EXPECT_EQ(shared.repository, r.repository);
    EXPECT_EQ(shared.series[0].base, r.series[0].base);
    EXPECT_EQ(loose_objects(r.repository), 0u);
    EXPECT_EQ(fsck_problems(r.repository), "");

    // Another file in it: another content, another repository.
    write_file(copy + "/drivers/misc/bar.c", "int bar;\n");
    opts.out_dir = tmp.path() + "/out-edited";
    SeriesResult edited = write_series(rule, foo_fix(), opts);
    EXPECT_NE(edited.repository, r.repository);
    EXPECT_EQ(run("git --git-dir=" + quote(edited.repository) + " rev-parse " +
                  edited.series[0].base + ":drivers/misc/bar.c")
                  .output,
              run("git hash-object " + quote(copy + "/drivers/misc/bar.c")).output);
}

} // namespace
