// ksweep series on Debian's Linux 6.1 tree, end to end through the ksweep binary:
// drivers/char/tpm (the tree is not a git repository: a cached scratch repository holds the
// commits) and the historical Nuvoton case (6.1's tpm_i2c_nuvoton.c turned back into its
// pre-v4.12 msleep form by tests/historical/nuvoton_pre_v4_12.sh, in a git clone).
// Every patch must `git am` onto its base, pass checkpatch.pl --strict with nothing to say,
// and go To/Cc exactly whom scripts/get_maintainer.pl names for its files.
#include "../series/test_repo.h"
#include "require_env.h"
#include "shareable.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using namespace ksweep::test;

namespace {

std::string tree_6_1() {
    if (const char* t = std::getenv("KSWEEP_TREE_6_1"))
        return t;
    std::istringstream in(read_file(std::string(std::getenv("HOME")) + "/.cache/ksweep/env"));
    for (std::string line; std::getline(in, line);)
        if (line.rfind("KSWEEP_TREE_6_1=", 0) == 0)
            return line.substr(16);
    return "";
}

struct Mail {
    std::string path;
    std::string text;
    std::vector<std::string> files;   // diff --git a/X
    std::set<std::string> recipients; // To and Cc
};

Mail read_mail(const std::string& path) {
    Mail m{path, read_file(path), {}, {}};
    std::string headers = m.text.substr(0, m.text.find("\n\n"));
    std::regex header(R"(\n(To|Cc): ((?:[^\n]|\n    )*))");
    for (auto it = std::sregex_iterator(headers.begin(), headers.end(), header);
         it != std::sregex_iterator(); ++it) {
        std::string list = (*it)[2];
        list = std::regex_replace(list, std::regex(",\n    "), "\x1f");
        std::istringstream items(list);
        for (std::string a; std::getline(items, a, '\x1f');)
            m.recipients.insert(a);
    }
    std::regex diff(R"(\ndiff --git a/(\S+) b/)");
    for (auto it = std::sregex_iterator(m.text.begin(), m.text.end(), diff);
         it != std::sregex_iterator(); ++it)
        m.files.push_back((*it)[1]);
    return m;
}

std::vector<Mail> mails_in(const std::string& dir) {
    std::vector<std::string> paths;
    for (const auto& e : fs::directory_iterator(dir))
        paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
    std::vector<Mail> out;
    for (const auto& p : paths)
        out.push_back(read_mail(p));
    return out;
}

std::set<std::string> get_maintainer(const std::string& tree,
                                     const std::vector<std::string>& files) {
    std::string cmd =
        "cd " + quote(tree) +
        " && perl scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats -f";
    for (const auto& f : files)
        cmd += " " + quote(f);
    auto r = run(cmd, false);
    EXPECT_EQ(r.status, 0) << cmd;
    std::set<std::string> out;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);)
        out.insert(line);
    return out;
}

// checkpatch.pl --strict from the 6.1 tree (spelling.txt and friends live there).
void expect_checkpatch_clean(const std::string& tree, const Mail& m) {
    auto r = run("cd " + quote(tree) + " && perl scripts/checkpatch.pl --strict " + quote(m.path));
    EXPECT_NE(r.output.find("total: 0 errors, 0 warnings, 0 checks"), std::string::npos)
        << m.path << "\n"
        << r.output;
}

// A sparse clone of the scratch repository of `tree` at `commit` with drivers/char/tpm checked
// out, for git am.
std::string sparse_clone(const std::string& repo, const std::string& tree,
                         const std::string& commit, const std::string& into) {
    scratch_checkout(repo, tree, commit, {"drivers/char/tpm", "include/linux"}, into);
    return into;
}

std::string ksweep(const std::string& args) {
    auto r = run(std::string(KSWEEP_BINARY) +
                 " series --signoff 'Test Maintainer "
                 "<test@example.org>' " +
                 args);
    EXPECT_EQ(r.status, 0) << args << "\n" << r.output;
    return r.output;
}

// One run of `ksweep series -o OUT TREE <paths>` shared by a suite's tests (it scans with
// clang and, the first time, snapshots the 70k-file tree into the scratch repository).
template <const char* kPaths> class SeriesRunOnLinux61 : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        tree = tree_6_1();
        if (tree.empty() || !fs::exists(tree + "/MAINTAINERS"))
            return;
        suite_tmp = new TempDir;
        listing_before = tree_listing();
        out = suite_tmp->path() + "/out";
        log = ksweep("-o " + quote(out) + " " + quote(tree) + " " + kPaths);
        std::smatch m;
        if (std::regex_search(log, m, std::regex("scratch repository\n(\\S+)")))
            scratch = m[1];
        // Nothing here may throw: gtest would skip the suite's tests, and ctest count a skip
        // as a pass. A run that made no series fails every test in SetUp, with its log.
        std::error_code ec;
        for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_directory(ec))
                series_dirs.push_back(it->path().string());
        std::sort(series_dirs.begin(), series_dirs.end());
    }
    static void TearDownTestSuite() {
        delete suite_tmp;
        suite_tmp = nullptr;
    }
    void SetUp() override {
        if (tree.empty() || !fs::exists(tree + "/MAINTAINERS"))
            KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
        ASSERT_FALSE(scratch.empty()) << log;
        ASSERT_FALSE(series_dirs.empty()) << log;
    }
    // What a run could have changed in the tree: new or newer files, a .git.
    static std::string tree_listing() {
        return run("cd " + quote(tree) + " && find . -newer Makefile | sort; ls -la").output;
    }

    static inline std::string tree, out, log, scratch, listing_before;
    static inline std::vector<std::string> series_dirs; // one folder per series
    static inline TempDir* suite_tmp = nullptr;
    TempDir tmp;
};

constexpr char kTpm[] = "drivers/char/tpm";
using SeriesOnLinux61 = SeriesRunOnLinux61<kTpm>;

TEST_F(SeriesOnLinux61, TpmSeriesLeavesTheTreeUntouched) {
    EXPECT_EQ(tree_listing(), listing_before);
    EXPECT_FALSE(fs::exists(tree + "/.git"));
}

TEST_F(SeriesOnLinux61, TpmSeriesAppliesPassesCheckpatchAndGoesToTheMaintainers) {
    ASSERT_EQ(series_dirs.size(), 1u) << log; // one maintainer tree
    auto mails = mails_in(series_dirs[0]);
    ASSERT_GE(mails.size(), 2u) << log;
    bool cover = mails.size() > 2;
    std::smatch m;
    ASSERT_TRUE(
        std::regex_search(mails.front().text, m, std::regex("\nbase-commit: ([0-9a-f]{40})\n")));
    std::string base = m[1];

    std::string clone = sparse_clone(scratch, tree, base, tmp.path() + "/clone");
    std::set<std::string> union_all;
    for (size_t i = cover ? 1 : 0; i < mails.size(); ++i) {
        const Mail& mail = mails[i];
        ASSERT_FALSE(mail.files.empty()) << mail.path;
        EXPECT_EQ(mail.recipients, get_maintainer(tree, mail.files)) << mail.path;
        union_all.insert(mail.recipients.begin(), mail.recipients.end());
        expect_checkpatch_clean(tree, mail);
        auto am = run("git -C " + quote(clone) + " am -q " + quote(mail.path));
        EXPECT_EQ(am.status, 0) << mail.path << "\n" << am.output;
    }
    if (cover) {
        EXPECT_EQ(mails.front().recipients, union_all);
        EXPECT_NE(mails.front().text.find("Subject: [PATCH 0/"), std::string::npos);
    }
}

// The words come from the tree: 6.1's sleep API as its sources state it, its timers document,
// the model's figures labelled with where HZ came from, and one line per prefix's source.
TEST_F(SeriesOnLinux61, MessagesSpeakTheTreesWordsAndTheRunSaysWhereEachPrefixCameFrom) {
    EXPECT_NE(log.find("ksweep series: tree: fsleep double-range (include/linux/delay.h:"),
              std::string::npos)
        << log;
    EXPECT_NE(log.find("msleep adds extra jiffy (kernel/time/timer.c:"), std::string::npos) << log;
    EXPECT_NE(log.find("timers document Documentation/timers/timers-howto.rst"), std::string::npos)
        << log;
    auto mails = mails_in(series_dirs.at(0));
    size_t prefix_lines = 0;
    for (size_t at = log.find("ksweep series: prefix 'tpm: "); at != std::string::npos;
         at = log.find("ksweep series: prefix 'tpm: ", at + 1))
        ++prefix_lines;
    EXPECT_EQ(prefix_lines, mails.size() - (mails.size() > 1 ? 1 : 0)) << log;
    for (const auto& mail : mails) {
        const std::string flat = std::regex_replace(mail.text, std::regex("\\s+"), " ");
        // HZ's real source: the tree has no .config, Debian's headers of its version have one.
        EXPECT_NE(flat.find("(sleep model, HZ=250 from the config of the installed headers "
                            "linux-headers-"),
                  std::string::npos)
            << mail.path;
        EXPECT_EQ(flat.find("the tree's config"), std::string::npos) << mail.path;
        EXPECT_NE(flat.find("Documentation/timers/timers-howto.rst recommends usleep_range()"),
                  std::string::npos)
            << mail.path;
        EXPECT_EQ(flat.find("or more at HZ=250"), std::string::npos) << mail.path;
        // drivers/char/tpm's own idiom: tpm.h's tpm_msleep(), said and used, no new constant.
        if (mail.text.find("\n+") == std::string::npos)
            continue; // the cover letter
        EXPECT_NE(mail.text.find("Use tpm_msleep() for short sleeps"), std::string::npos)
            << mail.path;
        EXPECT_NE(flat.find("tpm_msleep() (drivers/char/tpm/tpm.h:"), std::string::npos)
            << mail.path;
        EXPECT_EQ(mail.text.find("_DELAY_RANGE"), std::string::npos) << mail.path;
    }
}

// The mails, index.md and index.json are shared: no path of this machine in them (the index
// once named the tree and the subject table by their absolute paths).
TEST_F(SeriesOnLinux61, NothingWrittenNamesAPathOfThisMachine) {
    ksweep::test::expect_shareable_files(out, tree);
    EXPECT_NE(read_file(out + "/index.md").find("Tree `linux-source-6.1`"), std::string::npos)
        << read_file(out + "/index.md");
}

TEST_F(SeriesOnLinux61, HistoricalNuvotonSeriesAppliesAndPassesCheckpatch) {
    // A git clone of the snapshot with tpm_i2c_nuvoton.c as it was before v4.12.
    std::string snapshot = trim_newline(run("git --git-dir=" + quote(scratch) +
                                            " for-each-ref --format='%(objectname)' "
                                            "refs/ksweep/base/")
                                            .output);
    ASSERT_EQ(snapshot.size(), 40u) << snapshot;
    std::string clone = sparse_clone(scratch, tree, snapshot, tmp.path() + "/linux");
    run_git(clone, "checkout -q -b work");
    std::string file = clone + "/drivers/char/tpm/tpm_i2c_nuvoton.c";
    ASSERT_EQ(run("bash " +
                  quote(std::string(KSWEEP_SOURCE_DIR) + "/tests/historical/nuvoton_pre_v4_12.sh") +
                  " " + quote(file) + " " + quote(file))
                  .status,
              0);
    run_git(clone, "commit -q -am 'tpm: tpm_i2c_nuvoton: Go back to msleep() as before v4.12'");
    std::string before = run_git(clone, "rev-parse HEAD") + run_git(clone, "status --porcelain");

    std::string nuvoton_out = tmp.path() + "/nuvoton";
    std::string nuvoton_log = ksweep("-o " + quote(nuvoton_out) + " " + quote(clone) +
                                     " drivers/char/tpm/tpm_i2c_nuvoton.c");
    EXPECT_EQ(run_git(clone, "rev-parse HEAD") + run_git(clone, "status --porcelain"), before);
    auto mails = mails_in(only_series_dir(nuvoton_out));
    ASSERT_EQ(mails.size(), 1u) << nuvoton_log;
    const Mail& mail = mails[0];
    // The prefix comes from the clone's history.
    EXPECT_NE(mail.text.find("Subject: [PATCH] tpm: tpm_i2c_nuvoton: "), std::string::npos)
        << mail.text;
    EXPECT_EQ(mail.recipients, get_maintainer(tree, mail.files));
    expect_checkpatch_clean(tree, mail);
    auto am = run("git -C " + quote(clone) + " am -q " + quote(mail.path));
    EXPECT_EQ(am.status, 0) << am.output;
    // What git am made is what ksweep committed on its branch.
    std::string branch = trim_newline(run_git(clone, "for-each-ref --format='%(refname:short)' "
                                                     "refs/heads/ksweep/"));
    EXPECT_EQ(run_git(clone, "rev-parse HEAD^{tree}"),
              run_git(clone, "rev-parse " + branch + "^{tree}"));
}

// The sweep over drivers/iio and drivers/input (30 drivers): one series per maintainer tree,
// never mixing the two, each with its own cover letter, To/Cc as get_maintainer.pl names them
// for that series' patches, every patch checkpatch.pl --strict clean and applying to its base.
constexpr char kIioInput[] = "drivers/iio drivers/input";
using SweepOnLinux61 = SeriesRunOnLinux61<kIioInput>;

TEST_F(SweepOnLinux61, IioAndInputAreSeparateSeriesToTheirOwnMaintainers) {
    size_t iio = 0, input = 0;
    for (const auto& dir : series_dirs) {
        auto mails = mails_in(dir);
        const bool cover = mails.front().path.find("0000-cover-letter") != std::string::npos;
        std::set<std::string> subsystems;
        std::vector<std::string> all_files;
        for (size_t i = cover ? 1 : 0; i < mails.size(); ++i) {
            for (const auto& f : mails[i].files) {
                subsystems.insert(f.substr(0, f.find('/', std::string("drivers/").size())));
                all_files.push_back(f);
            }
            EXPECT_EQ(mails[i].recipients, get_maintainer(tree, mails[i].files)) << mails[i].path;
        }
        ASSERT_EQ(subsystems.size(), 1u) << dir << " mixes trees";
        iio += subsystems.count("drivers/iio");
        input += subsystems.count("drivers/input");
        EXPECT_LE(mails.size(), 16u) << dir; // at most 15 patches and the cover letter
        EXPECT_TRUE(cover || mails.size() == 1) << dir;
        // The cover letter goes to whom get_maintainer.pl names for all the series' files.
        if (cover) {
            EXPECT_EQ(mails.front().recipients, get_maintainer(tree, all_files)) << dir;
        }
    }
    EXPECT_GE(iio, 1u) << log;
    EXPECT_GE(input, 1u) << log;
    // The index lists every series with its tree.
    std::string index = read_file(out + "/index.json");
    EXPECT_NE(index.find("\"tree\": \"git git://git.kernel.org/pub/scm/linux/kernel/git/jic23/"
                         "iio.git\""),
              std::string::npos);
    EXPECT_NE(index.find("\"tree\": \"git git://git.kernel.org/pub/scm/linux/kernel/git/dtor/"
                         "input.git\""),
              std::string::npos);
}

TEST_F(SweepOnLinux61, EveryPatchIsCheckpatchStrictCleanAndApplies) {
    for (const auto& dir : series_dirs) {
        auto mails = mails_in(dir);
        std::smatch m;
        const std::string& last = mails.front().text;
        ASSERT_TRUE(std::regex_search(last, m, std::regex("\nbase-commit: ([0-9a-f]{40})\n")))
            << dir;
        std::string clone = tmp.path() + "/" + fs::path(dir).filename().string();
        scratch_checkout(scratch, tree, m[1].str(), {"drivers/iio", "drivers/input"}, clone);
        for (const auto& mail : mails) {
            if (mail.files.empty())
                continue; // the cover letter
            expect_checkpatch_clean(tree, mail);
            auto am = run("git -C " + quote(clone) + " am -q " + quote(mail.path));
            EXPECT_EQ(am.status, 0) << mail.path << "\n" << am.output;
        }
    }
}

} // namespace
