// write_series on a small kernel-like repository, with hand-built fix results: the user's
// checkout is untouched, mails equal git format-patch for the commits made, the cover letter
// has git's layout, names and prefixes follow the rules.
#include "git/base_blobs.h"
#include "git/git_handle.h"
#include "git/pack_writer.h"
#include "series/report.h"
#include "series/series.h"
#include "test_repo.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>

using namespace ksweep;
using namespace ksweep::series;
using namespace ksweep::test;

namespace {

constexpr long long kNow = 1790000000; // pinned so dates and message ids are predictable

const char* kMaintainers =
    "List of maintainers\n"
    "-------------------\n\n"
    "TPM DEVICE DRIVER\n"
    "M:\tPeter Huewe <peterhuewe@gmx.de>\n"
    "R:\tJason Gunthorpe <jgg@ziepe.ca>\n"
    "L:\tlinux-integrity@vger.kernel.org\n"
    "S:\tMaintained\n"
    "F:\tdrivers/char/tpm/\n\n"
    "ATMEL SOMETHING\n"
    "M:\tNicolas Ferre <nicolas.ferre@microchip.com>\n"
    "L:\tlinux-arm-kernel@lists.infradead.org (moderated for non-subscribers)\n"
    "S:\tSupported\n"
    "N:\tatmel\n\n"
    "THE REST\n"
    "M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
    "L:\tlinux-kernel@vger.kernel.org\n"
    "S:\tBuried alive in reporters\n"
    "F:\t*\n"
    "F:\t*/\n";

const char* kMakefile = "obj-$(CONFIG_TCG_TPM) += tpm.o\n"
                        "tpm-y := tpm-chip.o\n"
                        "tpm-y += tpm-interface.o\n"
                        "obj-$(CONFIG_TCG_ATMEL) += tpm_atmel.o\n"
                        "obj-$(CONFIG_TCG_NSC) += tpm_nsc.o\n";

std::string driver(const std::string& name, int ms) {
    return "// SPDX-License-Identifier: GPL-2.0\n#include <linux/delay.h>\n\nstatic void " + name +
           "_wait(void)\n{\n\tmsleep(" + std::to_string(ms) + ");\n}\n";
}

std::string fixed_driver(const std::string& name, int ms) {
    return "// SPDX-License-Identifier: GPL-2.0\n#include <linux/delay.h>\n\nstatic void " + name +
           "_wait(void)\n{\n\tusleep_range(" + std::to_string(ms * 1000) + ", " +
           std::to_string(ms * 1000 + 300) + ");\n}\n";
}

FileFix file_fix(const std::string& dir, const std::string& name, int ms) {
    FileFix f;
    f.file = dir + "/" + name + ".c";
    f.original = driver(name, ms);
    f.fixed = fixed_driver(name, ms);
    f.slack_us = 300;
    SiteOutcome site;
    site.fixed = true;
    site.how = "literal";
    site.finding.file = f.file;
    site.finding.line = 7;
    site.finding.function = name + "_wait";
    site.finding.callee = "msleep";
    site.finding.call = "msleep(" + std::to_string(ms) + ")";
    site.finding.argument = std::to_string(ms);
    site.finding.value = ms;
    site.finding.predicted_sleep_ms = ms < 4 ? 12 : 20;
    site.finding.actionable = true;
    f.sites.push_back(site);
    return f;
}

Rule test_rule() {
    Rule r = load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
    return r;
}

class SeriesTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repo = tmp.path() + "/linux";
        init_repo(repo);
        write_file(repo + "/MAINTAINERS", kMaintainers);
        write_file(repo + "/drivers/char/tpm/Makefile", kMakefile);
        for (auto [name, ms] :
             {std::pair{"tpm-chip", 1}, {"tpm-interface", 5}, {"tpm_atmel", 2}, {"tpm_nsc", 10}})
            write_file(repo + "/drivers/char/tpm/" + name + ".c", driver(name, ms));
        write_file(repo + "/drivers/char/tpm/README", "notes\n");
        run_git(repo, "add -A");
        run_git(repo, "commit -q -m 'Import'");
        // History that names the prefix the subsystem uses.
        write_file(repo + "/drivers/char/tpm/tpm_nsc.c", driver("tpm_nsc", 10) + "\n");
        run_git(repo, "commit -q -am 'tpm: tpm_nsc: Add a blank line'");
        write_file(repo + "/drivers/char/tpm/tpm_nsc.c", driver("tpm_nsc", 10));
        run_git(repo, "commit -q -am 'tpm: tpm_nsc: Remove the blank line'");
        write_file(repo + "/drivers/char/tpm/tpm_atmel.c", driver("tpm_atmel", 2) + "\n");
        run_git(repo, "commit -q -am 'tpm/atmel: Add a blank line'");
        write_file(repo + "/drivers/char/tpm/tpm_atmel.c", driver("tpm_atmel", 2));
        run_git(repo, "commit -q -am 'tpm: Remove a blank line'");

        fix.scan.hz = 250;
        fix.scan.kernel = KernelVersion{6, 1, 0};
        fix.files = {file_fix("drivers/char/tpm", "tpm-chip", 1),
                     file_fix("drivers/char/tpm", "tpm-interface", 5),
                     file_fix("drivers/char/tpm", "tpm_atmel", 2),
                     file_fix("drivers/char/tpm", "tpm_nsc", 10)};
        opts.tree = repo;
        opts.out_dir = tmp.path() + "/out";
        opts.cache_dir = tmp.path() + "/cache";
        opts.now = kNow;
        opts.signature = "ksweep test";
        opts.reroll = 2;
    }

    std::string state_of_checkout() {
        return run_git(repo, "rev-parse HEAD") + run_git(repo, "symbolic-ref HEAD") +
               run_git(repo, "status --porcelain=v2 --untracked-files=all") +
               run_git(repo, "diff") + run_git(repo, "diff --cached") +
               run("sha1sum " + quote(repo + "/.git/index")).output +
               run("cd " + quote(repo) +
                   " && find . -path ./.git -prune -o -type f -print0 | "
                   "sort -z | xargs -0 sha1sum")
                   .output;
    }

    Rule rule = test_rule();
    TempDir tmp;
    std::string repo;
    FixResult fix;
    SeriesOptions opts;
};

TEST_F(SeriesTest, LeavesBranchIndexAndWorkTreeAsTheyWere) {
    // Uncommitted work of the user's: a staged change, an unstaged one, an untracked file.
    write_file(repo + "/drivers/char/tpm/README", "staged notes\n");
    run_git(repo, "add drivers/char/tpm/README");
    write_file(repo + "/drivers/char/tpm/README", "unstaged notes\n");
    write_file(repo + "/scratch.txt", "untracked\n");
    std::string before = state_of_checkout();

    SeriesResult r = write_series(rule, fix, opts);

    EXPECT_EQ(state_of_checkout(), before);
    ASSERT_EQ(r.series.size(), 1u);
    EXPECT_EQ(r.series[0].branch, "ksweep/msleep_small-20260921");
    EXPECT_EQ(run_git(repo, "rev-parse ksweep/msleep_small-20260921~3"),
              run_git(repo, "rev-parse HEAD"));
}

TEST_F(SeriesTest, FileWithUncommittedChangesIsLeftOutWithAWarning) {
    fix.files[3].original += "/* local edit */\n";
    write_file(repo + "/drivers/char/tpm/tpm_nsc.c", fix.files[3].original);
    SeriesResult r = write_series(rule, fix, opts);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("tpm_nsc.c"), std::string::npos);
    EXPECT_EQ(r.series[0].subjects.size(), 2u); // tpm (chip + interface), tpm_atmel
}

TEST_F(SeriesTest, OnePatchPerModuleInPathOrderWithPrefixesFromHistory) {
    SeriesResult r = write_series(rule, fix, opts);
    ASSERT_EQ(r.series.size(), 1u);
    const auto& s = r.series[0];
    ASSERT_EQ(s.subjects.size(), 3u);
    // tpm-chip.c and tpm-interface.c build one module (tpm.o): one patch.
    EXPECT_EQ(run_git(repo, "show --name-only --format= " + s.branch + "~2"),
              "drivers/char/tpm/tpm-chip.c\ndrivers/char/tpm/tpm-interface.c\n");
    // tpm_nsc's history says "tpm: tpm_nsc:"; tpm_atmel's is split 1:1, the most recent wins.
    EXPECT_EQ(s.subjects[2].rfind("tpm: tpm_nsc: ", 0), 0u) << s.subjects[2];
    EXPECT_EQ(s.subjects[1].rfind("tpm: ", 0), 0u) << s.subjects[1];
    for (const auto& subject : s.subjects)
        EXPECT_LE(subject.size(), 75u);
    EXPECT_EQ(std::set<std::string>(s.subjects.begin(), s.subjects.end()).size(), 3u);
    // Cover letter first, then the patches, named like git's.
    ASSERT_EQ(s.files.size(), 4u);
    EXPECT_EQ(std::filesystem::path(s.files[0]).filename(), "v2-0000-cover-letter.patch");
    EXPECT_EQ(std::filesystem::path(s.files[1]).filename().string().rfind("v2-0001-tpm-", 0), 0u);
}

// The must-show: for the commits ksweep made, each mail is what git format-patch writes with
// the same recipients, threading and signature (message-id times made equal).
TEST_F(SeriesTest, EveryPatchMailEqualsGitFormatPatchOfTheSameCommits) {
    SeriesResult r = write_series(rule, fix, opts);
    const auto& s = r.series[0];
    const std::regex stamp(R"(\.[0-9]+\.git\.)");
    const std::string range = s.base + ".." + s.branch;
    for (size_t i = 1; i < s.files.size(); ++i) {
        std::string ours = read_file(s.files[i]);
        // The recipients ksweep chose for this mail, handed to git as --to/--cc.
        std::string args;
        std::smatch m;
        std::string headers = ours.substr(0, ours.find("\n\n"));
        std::regex to_re(R"(\n(To|Cc): ((?:[^\n]|\n    )*))");
        for (auto it = std::sregex_iterator(headers.begin(), headers.end(), to_re);
             it != std::sregex_iterator(); ++it) {
            std::string kind = (*it)[1] == "To" ? "--to" : "--cc";
            std::string list = (*it)[2];
            size_t pos = 0;
            while (pos <= list.size()) {
                size_t comma = list.find(",\n    ", pos);
                std::string addr =
                    list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
                args += " " + kind + " " + quote(addr);
                if (comma == std::string::npos)
                    break;
                pos = comma + 6;
            }
        }
        std::string out = tmp.path() + "/git-" + std::to_string(i);
        run_git(repo, "format-patch -q -v2 --thread --cover-letter --base=" + s.base +
                          " --signature='ksweep test' -o " + quote(out) + args + " " + range);
        std::vector<std::string> theirs;
        for (const auto& e : std::filesystem::directory_iterator(out))
            theirs.push_back(e.path().string());
        std::sort(theirs.begin(), theirs.end());
        ASSERT_EQ(theirs.size(), s.files.size());
        EXPECT_EQ(std::filesystem::path(theirs[i]).filename(),
                  std::filesystem::path(s.files[i]).filename());
        EXPECT_EQ(std::regex_replace(ours, stamp, ".T.git."),
                  std::regex_replace(read_file(theirs[i]), stamp, ".T.git."))
            << s.files[i];
    }
}

// The cover letter has git's layout: git's own cover letter with its placeholders replaced by
// ksweep's subject and blurb, and its Date made equal, is ksweep's.
void expect_cover_like_gits(const std::string& repo, const std::string& tmp, const WrittenSeries& s,
                            const std::string& git_ident) {
    std::string ours = read_file(s.files[0]);
    std::string args;
    for (const auto& a : s.to)
        args += " --to " + quote(a);
    for (const auto& a : s.cc)
        args += " --cc " + quote(a);
    std::string out = tmp + "/git-cover";
    run_git(repo, git_ident + " format-patch -q -v2 --thread --cover-letter --base=" + s.base +
                      " --signature='ksweep test' -o " + quote(out) + args + " " + s.base + ".." +
                      s.branch);
    std::string theirs = read_file(out + "/v2-0000-cover-letter.patch");

    auto header = [](const std::string& mail, const std::string& name) {
        std::smatch m;
        std::regex re("\n" + name + ": ([^\n]*(\n [^\n]*)*)");
        return std::regex_search(mail, m, re) ? m[1].str() : std::string();
    };
    std::string body_ours = ours.substr(ours.find("\n\n") + 2);
    std::string blurb = body_ours.substr(0, body_ours.find("\nNo runtime measurements") + 49);
    std::string subject = header(ours, "Subject");
    theirs = std::regex_replace(theirs, std::regex(R"(\.[0-9]+\.git\.)"), ".T.git.");
    ours = std::regex_replace(ours, std::regex(R"(\.[0-9]+\.git\.)"), ".T.git.");
    theirs =
        std::regex_replace(theirs, std::regex("\nDate: [^\n]*"), "\nDate: " + header(ours, "Date"));
    theirs.replace(theirs.find("*** BLURB HERE ***\n"), 19, blurb);
    std::string their_subject = header(theirs, "Subject");
    theirs.replace(theirs.find(their_subject), their_subject.size(), subject);
    EXPECT_EQ(ours, theirs);
    EXPECT_NE(subject.find("[PATCH v2 0/3] tpm: "), std::string::npos) << subject;
    EXPECT_NE(ours.find("\nbase-commit: " + s.base + "\n-- \nksweep test\n"), std::string::npos);
}

TEST_F(SeriesTest, CoverLetterHasGitsLayout) {
    SeriesResult r = write_series(rule, fix, opts);
    expect_cover_like_gits(repo, tmp.path(), r.series[0], "");
}

TEST_F(SeriesTest, CoverLetterOfANonAsciiAuthorHasGitsEncoding) {
    opts.signoff = "J\xc3\xb6rg R\xc3\xb6"
                   "del <joerg@example.org>";
    SeriesResult r = write_series(rule, fix, opts);
    // Patches carry the RFC 2047 form; the cover letter, like git's, the raw name.
    EXPECT_NE(read_file(r.series[0].files[1]).find("From: =?UTF-8?q?J=C3=B6rg=20R=C3=B6del?="),
              std::string::npos);
    expect_cover_like_gits(repo, tmp.path(), r.series[0],
                           "-c user.name=" +
                               quote("J\xc3\xb6rg R\xc3\xb6"
                                     "del") +
                               " -c user.email=joerg@example.org");
}

TEST_F(SeriesTest, RecipientsComeFromMaintainers) {
    SeriesResult r = write_series(rule, fix, opts);
    const auto& s = r.series[0];
    std::string atmel = read_file(s.files[2]);
    EXPECT_NE(atmel.find("To: Peter Huewe <peterhuewe@gmx.de>,\n    Jason Gunthorpe <jgg@ziepe.ca>,"
                         "\n    Nicolas Ferre <nicolas.ferre@microchip.com>\n"),
              std::string::npos)
        << atmel;
    EXPECT_NE(
        atmel.find("Cc: linux-integrity@vger.kernel.org,\n    "
                   "linux-arm-kernel@lists.infradead.org,\n    linux-kernel@vger.kernel.org\n"),
        std::string::npos);
    EXPECT_EQ(atmel.find("torvalds"), std::string::npos);
    std::string nsc = read_file(s.files[3]);
    EXPECT_EQ(nsc.find("microchip"), std::string::npos);
    // The cover letter goes to everyone any patch goes to.
    EXPECT_EQ(s.to.size(), 3u);
    EXPECT_EQ(s.cc.size(), 3u);
}

TEST_F(SeriesTest, BodyIsWrappedAndSignedOff) {
    opts.signoff = "Some One <some.one@example.org>";
    SeriesResult r = write_series(rule, fix, opts);
    std::string msg = run_git(repo, "log -1 --format=%B " + r.series[0].branch);
    std::istringstream in(msg);
    for (std::string line; std::getline(in, line);)
        EXPECT_LE(line.size(), 75u) << line;
    EXPECT_NE(msg.find("msleep(10)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("up to 20 ms"), std::string::npos) << msg;
    EXPECT_NE(msg.find("\nSigned-off-by: Some One <some.one@example.org>\n"), std::string::npos);
    EXPECT_EQ(run_git(repo, "log -1 --format='%an <%ae>' " + r.series[0].branch),
              "Some One <some.one@example.org>\n");
}

TEST_F(SeriesTest, TakenBranchGetsASuffixAndAForeignOutputDirIsRefused) {
    SeriesResult first = write_series(rule, fix, opts);
    // The same folder again: its index.json makes this the sweep's next run.
    SeriesResult second = write_series(rule, fix, opts);
    EXPECT_EQ(second.series[0].branch, first.series[0].branch + "-2");
    // A folder with something else in it is not ours to write into.
    opts.out_dir = tmp.path() + "/foreign";
    write_file(opts.out_dir + "/notes.txt", "mine\n");
    std::string branches_before = run_git(repo, "branch --list");
    EXPECT_THROW(write_series(rule, fix, opts), std::runtime_error);
    EXPECT_EQ(run_git(repo, "branch --list"), branches_before); // and nothing was made
    opts.force = true;
    EXPECT_EQ(write_series(rule, fix, opts).series[0].branch, first.series[0].branch + "-3");
}

// Another run that chose a name and has not written its branches yet holds it: this run takes
// the next one, and leaves no reservation of its own behind.
TEST_F(SeriesTest, ANameAnotherRunReservedIsNotTaken) {
    const std::string name = write_series(rule, fix, opts).series[0].branch;
    run_git(repo, "branch -D " + name);
    run_git(repo, "symbolic-ref refs/ksweep-reserved/" + name + " refs/heads/" + name);
    opts.out_dir = tmp.path() + "/second";
    EXPECT_EQ(write_series(rule, fix, opts).series[0].branch, name + "-2");
    // Loose refs: the other run's reservation is there, this run's own is gone.
    const std::filesystem::path reserved =
        std::filesystem::path(repo) / ".git/refs/ksweep-reserved";
    EXPECT_TRUE(std::filesystem::exists(reserved / name));
    EXPECT_FALSE(std::filesystem::exists(reserved / (name + "-2")));
}

TEST_F(SeriesTest, FreedBranchNameWhoseDefaultFolderHasMailsIsSkipped) {
    // A pruned scratch branch frees its name, but patches/<name> still holds that run's mails.
    opts.out_dir.clear();
    opts.branch = "sweep";
    std::filesystem::create_directories(tmp.path() + "/patches/sweep");
    write_file(tmp.path() + "/patches/sweep/0001-old.patch", "an earlier run's mail\n");
    std::filesystem::path cwd = std::filesystem::current_path();
    std::filesystem::current_path(tmp.path());
    SeriesResult r;
    EXPECT_NO_THROW(r = write_series(rule, fix, opts));
    std::filesystem::current_path(cwd);
    ASSERT_EQ(r.series.size(), 1u);
    EXPECT_EQ(r.series[0].branch, "sweep-2");
    EXPECT_EQ(read_file(tmp.path() + "/patches/sweep/0001-old.patch"), "an earlier run's mail\n");
}

TEST_F(SeriesTest, MoreThanMaxPatchesMakesSeveralSeries) {
    opts.max_patches = 2;
    opts.branch = "sweep";
    SeriesResult r = write_series(rule, fix, opts);
    ASSERT_EQ(r.series.size(), 2u);
    // TPM DEVICE DRIVER names no tree (T:): its M:/L: set is the tree, named after it.
    EXPECT_EQ(r.series[0].name, "tpm-device-driver");
    EXPECT_EQ(r.series[1].name, "tpm-device-driver-2");
    EXPECT_EQ(r.series[0].branch, "sweep-tpm-device-driver");
    EXPECT_EQ(r.series[1].branch, "sweep-tpm-device-driver-2");
    EXPECT_EQ(r.series[0].dir, opts.out_dir + "/tpm-device-driver");
    EXPECT_EQ(r.series[1].subjects.size(), 1u);
    // Each part applies to the base on its own.
    EXPECT_EQ(run_git(repo, "rev-parse sweep-tpm-device-driver-2~1"),
              run_git(repo, "rev-parse HEAD"));
    // A single-patch part has no cover letter and carries base-commit itself.
    std::string only = read_file(r.series[1].files[0]);
    EXPECT_NE(only.find("Subject: [PATCH v2] tpm: tpm_nsc: "), std::string::npos) << only;
    EXPECT_NE(only.find("\nbase-commit: "), std::string::npos);
}

TEST_F(SeriesTest, TreeOutsideGitGetsACachedScratchRepository) {
    std::string plain = tmp.path() + "/plain";
    run("cp -a " + quote(repo) + " " + quote(plain) + " && rm -rf " + quote(plain + "/.git"));
    write_file(plain + "/.gitignore", "*\n"); // like Debian's linux-source: ignores everything
    opts.tree = plain;
    opts.signoff = "Test Maintainer <test@example.org>";
    std::string listing = run("cd " + quote(plain) + " && find . | sort").output;
    SeriesResult r = write_series(rule, fix, opts);
    EXPECT_TRUE(r.scratch);
    EXPECT_FALSE(std::filesystem::exists(plain + "/.git"));
    EXPECT_EQ(run("cd " + quote(plain) + " && find . | sort").output, listing);
    std::string gd = "git --git-dir=" + quote(r.repository) + " ";
    // The base records every file, ignored or not, as git would: its tree is the one git
    // writes for the same files.
    const std::string other = "git --git-dir=" + quote(tmp.path() + "/other.git") + " ";
    run(other + "init -q --bare && " + other + "--work-tree=" + quote(plain) + " add -A -f");
    EXPECT_EQ(run(gd + "rev-parse " + r.series[0].base + "^{tree}").output,
              run(other + "write-tree").output);
    // Of their content it holds the top-level files and the ones the series changed, as they
    // were; not the others (base_blobs.h).
    EXPECT_EQ(run(gd + "show " + r.series[0].base + ":MAINTAINERS").output, kMaintainers);
    EXPECT_EQ(run(gd + "show " + r.series[0].base + ":drivers/char/tpm/tpm_nsc.c").output,
              driver("tpm_nsc", 10));
    EXPECT_NE(run(gd + "cat-file -e " + r.series[0].base + ":drivers/char/tpm/README").status, 0);
    // Subjects come from MAINTAINERS and paths.
    EXPECT_EQ(r.series[0].subjects[2].rfind("tpm: tpm_nsc: ", 0), 0u) << r.series[0].subjects[2];
    EXPECT_EQ(r.series[0].subjects[0].rfind("tpm: Use ", 0), 0u) << r.series[0].subjects[0];
    // A second run reuses the cached base.
    opts.force = true;
    SeriesResult again = write_series(rule, fix, opts);
    EXPECT_EQ(again.series[0].base, r.series[0].base);
}

TEST_F(SeriesTest, AScratchBaseIsCompletedFromTheTreeAndRepackedWithoutWhatNoRefReaches) {
    std::string plain = tmp.path() + "/plain";
    run("cp -a " + quote(repo) + " " + quote(plain) + " && rm -rf " + quote(plain + "/.git"));
    write_file(plain + "/drivers/misc/notes.txt", "elsewhere\n");
    opts.tree = plain;
    opts.signoff = "Test Maintainer <test@example.org>";
    SeriesResult r = write_series(rule, fix, opts);
    ASSERT_TRUE(r.scratch);
    const std::string gd = "git --git-dir=" + quote(r.repository) + " ";
    const std::string readme = r.series[0].base + ":drivers/char/tpm/README";
    ASSERT_NE(run(gd + "cat-file -e " + readme).status, 0);

    git::LibGit2 libgit2;
    git_repository* raw = nullptr;
    ASSERT_EQ(git_repository_open_bare(&raw, r.repository.c_str()), 0);
    git::Repository scratch(raw);
    git_oid base;
    ASSERT_EQ(git_oid_fromstr(&base, r.series[0].base.c_str()), 0);
    // A file on disk that is not the one the base records is refused, and nothing written.
    write_file(plain + "/drivers/char/tpm/README", "edited\n");
    EXPECT_THROW(git::fill_base_blobs(scratch.get(), base, plain, {"drivers/char/tpm"}, {}),
                 git::GitError);
    EXPECT_NE(run(gd + "cat-file -e " + readme).status, 0);
    // The file as it was: written (the driver's files already there are not written again).
    write_file(plain + "/drivers/char/tpm/README", "notes\n");
    EXPECT_EQ(git::fill_base_blobs(scratch.get(), base, plain, {"drivers/char/tpm"}, {}), 2u)
        << "README and Makefile";
    EXPECT_EQ(run(gd + "show " + readme).output, "notes\n");
    // A sparse clone of the directory checks out from it.
    const std::string clone = tmp.path() + "/clone";
    ASSERT_EQ(run("git clone -q --shared --no-checkout " + quote(r.repository) + " " +
                  quote(clone) + " && git -C " + quote(clone) +
                  " sparse-checkout set --cone drivers/char/tpm && git -C " + quote(clone) +
                  " checkout -q --detach " + r.series[0].base)
                  .status,
              0);
    EXPECT_EQ(read_file(clone + "/drivers/char/tpm/README"), "notes\n");

    // A repack keeps what the references reach, leaves out what no one needed yet, and drops
    // what nothing reaches: git's own repack refuses the base as corrupt.
    // A packed object nothing reaches (a pruned branch's).
    const std::string stray_id =
        trim_newline(run("echo 'reached by nothing' | " + gd + "hash-object -w --stdin").output);
    ASSERT_EQ(run("echo " + stray_id + " | " + gd + "pack-objects -q " +
                  quote(r.repository + "/objects/pack/pack") + " > /dev/null && " + gd +
                  "prune-packed")
                  .status,
              0);
    EXPECT_EQ(run(gd + "cat-file -e " + stray_id).status, 0);
    git::repack(scratch.get());
    // Again, with nothing changed: the same pack, which stays.
    git::repack(scratch.get());
    EXPECT_NE(run(gd + "cat-file -e " + stray_id).status, 0);
    EXPECT_EQ(run(gd + "show " + readme).output, "notes\n");
    EXPECT_NE(run(gd + "cat-file -e " + r.series[0].base + ":drivers/misc/notes.txt").status, 0);
    EXPECT_EQ(run(gd + "count-objects -v | grep ^packs:").output, "packs: 1\n");
    for (const auto& s : r.series)
        EXPECT_EQ(run(gd + "cat-file -e " + s.branch).status, 0) << s.branch;
}

// The report is what `ksweep validate` writes (docs/report-json.md), abridged.
TEST_F(SeriesTest, ReportFiguresReachCommitMessageAndCoverLetter) {
    std::string report = tmp.path() + "/report.json";
    write_file(report, R"({"format": "ksweep-validate-report", "format_version": 1,
        "passed": true, "kernel_release": "6.1.0-0-test", "config_hz": 250,
        "started_at": "2026-12-01T04:00:00Z",
        "patches": [{"number": 3, "files": ["drivers/char/tpm/tpm_nsc.c"], "passed": true,
          "levels": {"L2": {"status": "passed"}, "L1": {"status": "passed"},
                     "L3": {"status": "passed"}, "L4": {"status": "passed"}},
          "devices": [{"driver": "tpm_nsc", "extends": 200, "median_ratio": 0.11,
            "variants": {"baseline": {"boots": 3, "median_us": 24012.5},
                         "patched": {"boots": 3, "median_us": 2650.1}}}]}]})");
    opts.report = report;
    SeriesResult r = write_series(rule, fix, opts);
    std::string msg = run_git(repo, "log -1 --format=%B " + r.series[0].branch);
    std::string flat = std::regex_replace(msg, std::regex("\\s+"), " ");
    // Labelled with its source: which report of which run, by file name (never a local path).
    EXPECT_NE(flat.find("Measured by ksweep validate (report report.json of "
                        "2026-12-01T04:00:00Z) in QEMU with Linux 6.1.0-0-test (HZ=250) and "
                        "an emulated "
                        "device for tpm_nsc: the median TPM2_PCR_Extend round trip through "
                        "/dev/tpm0 went from 24.0 ms to 2.7 ms (200 extends per boot, 3 and 3 "
                        "boots)."),
              std::string::npos)
        << msg;
    // Patches the report does not measure say nothing about measurements.
    EXPECT_EQ(run_git(repo, "log -1 --format=%B " + r.series[0].branch + "~1").find("Measured"),
              std::string::npos);
    std::string cover =
        std::regex_replace(read_file(r.series[0].files[0]), std::regex("\\s+"), " ");
    EXPECT_NE(cover.find("Validation by ksweep validate (report report.json of "
                         "2026-12-01T04:00:00Z) (L1 git am,"),
              std::string::npos)
        << cover;
    EXPECT_EQ(cover.find(tmp.path()), std::string::npos) << cover;
    EXPECT_NE(cover.find("every patch passed. - tpm: tpm_nsc: L1 passed, L2 passed, L3 passed, "
                         "L4 passed. Measured by ksweep validate (report report.json of "
                         "2026-12-01T04:00:00Z) in QEMU"),
              std::string::npos)
        << cover;

    write_file(report, R"({"format": "ksweep-validate-report",
        "patches": [{"files": "x"}]})");
    opts.force = true;
    try {
        write_series(rule, fix, opts);
        ADD_FAILURE() << "a bad report was accepted";
    } catch (const std::runtime_error& e) {
        // Where in the document, as a JSON path: the JSON library keeps no line numbers.
        EXPECT_NE(std::string(e.what()).find("report.json: patches[0]: 'files' must be an array"),
                  std::string::npos)
            << e.what();
    }
    write_file(report, R"({"environment": "x"})");
    EXPECT_THROW(write_series(rule, fix, opts), std::runtime_error);
}

// A report may come from elsewhere (a lab, a colleague): its files are tree paths, checked.
TEST(ValidateReportFiles, APathLeavingTheTreeIsRefusedWithItsPlace) {
    try {
        parse_report(R"({"format": "ksweep-validate-report", "patches": [{"files":
            ["drivers/char/tpm/tpm_nsc.c", "../../etc/passwd"], "subject": "x"}]})",
                     "r.json");
        ADD_FAILURE() << "a path leaving the tree was read";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), "r.json: patches[0].files[1]: path ../../etc/passwd: a "
                                         "'..' component leaves the tree");
    }
}

} // namespace

namespace {

TEST_F(SeriesTest, GroupByMaintainerAndByFile) {
    opts.group = GroupBy::Maintainer; // every file's deepest section is TPM DEVICE DRIVER
    SeriesResult by_section = write_series(rule, fix, opts);
    EXPECT_EQ(by_section.series[0].subjects.size(), 1u);
    EXPECT_EQ(run_git(repo, "show --name-only --format= " + by_section.series[0].branch),
              "drivers/char/tpm/tpm-chip.c\ndrivers/char/tpm/tpm-interface.c\n"
              "drivers/char/tpm/tpm_atmel.c\ndrivers/char/tpm/tpm_nsc.c\n");
    opts.group = GroupBy::File;
    opts.out_dir += "-by-file";
    EXPECT_EQ(write_series(rule, fix, opts).series[0].subjects.size(), 4u);
}

} // namespace

namespace {

// The branches of a sweep's series never collide with an earlier run's.
TEST_F(SeriesTest, SplitSeriesNamesAvoidTakenSuffixes) {
    run_git(repo, "branch sweep-tpm-device-driver-2");
    opts.max_patches = 2;
    opts.branch = "sweep";
    SeriesResult r = write_series(rule, fix, opts);
    ASSERT_EQ(r.series.size(), 2u);
    EXPECT_EQ(r.series[0].branch, "sweep-2-tpm-device-driver");
    EXPECT_EQ(r.series[1].branch, "sweep-2-tpm-device-driver-2");
    EXPECT_EQ(run_git(repo, "rev-parse sweep-tpm-device-driver-2"),
              run_git(repo, "rev-parse HEAD")); // left alone
}

} // namespace
