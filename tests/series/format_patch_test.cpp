// Mails written from commits must be byte for byte what `git format-patch` writes for the same
// commits and options: the real git runs beside ours and the files are compared whole.
#include "series/mail.h"
#include "test_repo.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>

using namespace ksweep::series;
using namespace ksweep::git;
using namespace ksweep::test;

namespace {

constexpr const char* kSignature = "ksweep test";

class FormatPatchTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repo_dir = tmp.path() + "/repo";
        init_repo(repo_dir);
        write_file(repo_dir + "/drivers/char/tpm/tpm_demo.c",
                   "static int demo(void)\n{\n\tmsleep(2);\n\treturn 0;\n}\n");
        write_file(repo_dir + "/drivers/char/tpm/gone.h", "#define GONE 1\n");
        run_git(repo_dir, "add -A");
        run_git(repo_dir, "commit -q -m 'Initial import'");
        base = trim(run_git(repo_dir, "rev-parse HEAD"));

        write_file(repo_dir + "/drivers/char/tpm/tpm_demo.c",
                   "static int demo(void)\n{\n\tusleep_range(2000, 2300);\n\treturn 0;\n}\n");
        commit("tpm: tpm_demo: Use usleep_range() for a short sleep\n\n"
               "msleep(2) sleeps up to 12 ms at HZ=250; this one wants 2 ms.\n\n"
               "Signed-off-by: Test Maintainer <test@example.org>\n");
        write_file(repo_dir + "/drivers/char/tpm/new_file.h", "#define NEW_DELAY_US 300\n");
        commit("tpm: Add a header whose subject is long enough to need all 75 columns of it\n\n"
               "Signed-off-by: Test Maintainer <test@example.org>\n");
        std::filesystem::remove(repo_dir + "/drivers/char/tpm/gone.h");
        commit("tpm: Remove gone.h\n");

        LibGit2 init;
        git_repository* raw = nullptr;
        check(git_repository_open(&raw, repo_dir.c_str()), "open");
        repo.reset(raw);
    }

    void commit(const std::string& message) {
        write_file(tmp.path() + "/msg", message);
        run_git(repo_dir, "add -A");
        run_git(repo_dir, "commit -q -F " + quote(tmp.path() + "/msg"));
    }

    static std::string trim(std::string s) {
        while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
            s.pop_back();
        return s;
    }

    // Runs git format-patch into a fresh directory; returns its files in order.
    std::vector<std::string> git_format_patch(const std::string& args) {
        std::string out = tmp.path() + "/git-out-" + std::to_string(++runs);
        run_git(repo_dir, "format-patch -q -o " + quote(out) + " --signature=" + quote(kSignature) +
                              " " + args);
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(out))
            files.push_back(e.path().string());
        std::sort(files.begin(), files.end());
        return files;
    }

    Commit commit_at(const std::string& rev) {
        git_oid id;
        check(git_oid_fromstr(&id, trim(run_git(repo_dir, "rev-parse " + rev)).c_str()), "oid");
        return lookup_commit(repo.get(), id);
    }

    LibGit2 lib;
    TempDir tmp;
    std::string repo_dir, base;
    Repository repo;
    int runs = 0;
};

TEST_F(FormatPatchTest, NumberedSeriesWithRerollToCcAndBaseMatchesGit) {
    auto files = git_format_patch("-v3 --to 'Peter Huewe <peterhuewe@gmx.de>' "
                                  "--to 'Jarkko Sakkinen <jarkko@kernel.org>' "
                                  "--cc linux-integrity@vger.kernel.org --base=" +
                                  base + " " + base + "..HEAD");
    ASSERT_EQ(files.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        MailOptions opts;
        opts.number = i + 1;
        opts.total = 3;
        opts.reroll = 3;
        opts.to = {"Peter Huewe <peterhuewe@gmx.de>", "Jarkko Sakkinen <jarkko@kernel.org>"};
        opts.cc = {"linux-integrity@vger.kernel.org"};
        opts.signature = kSignature;
        if (i == 0)
            opts.base_commit = base; // without a cover letter git puts it in the first mail
        Commit c = commit_at("HEAD~" + std::to_string(2 - i));
        EXPECT_EQ(format_patch_mail(repo.get(), c.get(), opts), read_file(files[i])) << files[i];
        EXPECT_EQ(patch_file_name(i + 1, git_commit_summary(c.get()), 3),
                  std::filesystem::path(files[i]).filename().string());
    }
}

TEST_F(FormatPatchTest, SinglePatchWithoutNumbersMatchesGit) {
    auto files = git_format_patch("-1 HEAD~2");
    ASSERT_EQ(files.size(), 1u);
    MailOptions opts;
    opts.signature = kSignature;
    Commit c = commit_at("HEAD~2");
    EXPECT_EQ(format_patch_mail(repo.get(), c.get(), opts), read_file(files[0]));
    EXPECT_EQ(patch_file_name(1, git_commit_summary(c.get()), 0),
              std::filesystem::path(files[0]).filename().string());
}

// git's message ids carry the current time: compare with the times made equal.
TEST_F(FormatPatchTest, ThreadingHeadersMatchGitShallowThreads) {
    auto files = git_format_patch("--thread --cover-letter " + base + "..HEAD");
    ASSERT_EQ(files.size(), 4u);
    const std::regex stamp(R"(\.[0-9]+\.git\.)");
    for (size_t i = 1; i < 4; ++i) {
        Commit c = commit_at("HEAD~" + std::to_string(3 - i));
        MailOptions opts;
        opts.number = i;
        opts.total = 3;
        opts.signature = kSignature;
        opts.message_id = message_id_for(oid_hex(*git_commit_id(c.get())), 1, "test@example.org");
        opts.in_reply_to = message_id_for("cover", 1, "test@example.org");
        std::string theirs = std::regex_replace(read_file(files[i]), stamp, ".1.git.");
        EXPECT_EQ(format_patch_mail(repo.get(), c.get(), opts), theirs) << files[i];
    }
}

// Names and subjects git has to encode: RFC 2047 for non-ASCII (and MIME headers when the
// message itself is not ASCII), RFC 822 quotes for specials, folding of long names.
TEST_F(FormatPatchTest, EncodedAuthorsAndSubjectsMatchGit) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"J\xc3\xb6rg R\xc3\xb6"
         "del",
         "tpm: Fix R\xc3\xb6"
         "del's typo\n\n"
         "Signed-off-by: J\xc3\xb6rg R\xc3\xb6"
         "del <j@example.org>\n"},
        {"J\xc3\xb6rg R\xc3\xb6"
         "del",
         "tpm: ASCII message, non-ASCII author\n"},
        {"David S. Miller", "net: Quote \"specials\" in names\n"},
        {"Maximilian Alexander Bartholomew Featherstonehaugh-Cholmondeley the Third",
         "tpm: A name too long for one line\n"},
        {"\xc3\x89milie \xc3\x89l\xc3\xa9onore Marie-Th\xc3\xa9r\xc3\xa8se de "
         "la Fontaine-Saint-Ch\xc3\xa9ron",
         "tpm: An encoded name long enough to need a second encoded word\n"},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        write_file(repo_dir + "/drivers/char/tpm/tpm_demo.c",
                   "int v = " + std::to_string(i) + ";\n");
        write_file(tmp.path() + "/msg", cases[i].second);
        run_git(repo_dir, "add -A");
        run_git(repo_dir, "commit -q --author=" + quote(cases[i].first + " <j@example.org>") +
                              " -F " + quote(tmp.path() + "/msg"));
        auto files = git_format_patch("--to a@b -1 HEAD");
        ASSERT_EQ(files.size(), 1u);
        MailOptions opts;
        opts.signature = kSignature;
        opts.to = {"a@b"};
        Commit c = commit_at("HEAD");
        EXPECT_EQ(format_patch_mail(repo.get(), c.get(), opts), read_file(files[0]))
            << cases[i].first;
    }
}

TEST(MailFormat, SubjectPrefixesAndHeaders) {
    EXPECT_EQ(subject_prefix(1, 1, 0), "[PATCH]");
    EXPECT_EQ(subject_prefix(0, 7, 2), "[PATCH v2 0/7]");
    EXPECT_EQ(subject_prefix(3, 7, 1), "[PATCH 3/7]");
    EXPECT_EQ(address_header("Cc", {"a@b", "C <c@d>"}), "Cc: a@b,\n    C <c@d>\n");
    EXPECT_EQ(address_header("To", {}), "");
    EXPECT_EQ(rfc2822_date(0, 60), "Thu, 01 Jan 1970 01:00:00 +0100");
    EXPECT_EQ(patch_file_name(0, "cover-letter", 2), "v2-0000-cover-letter.patch");
}

} // namespace
