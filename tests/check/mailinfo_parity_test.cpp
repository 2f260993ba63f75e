// Differential test: every mail of the test corpus read by ksweep's mail reader and by git's
// own (git mailsplit -b, then git mailinfo, what git am runs), the patch text compared byte for
// byte. The corpus: the gate's fixture patches and series, and tests/fixtures/mail/ (the same
// patches quoted-printable, base64, multipart, ISO-8859-1, CRLF and in a thread, written by git
// format-patch, git send-email and Python's email package: make_corpus.sh).
#include "check/mail_text.h"
#include "check/mbox.h"
#include "core/file_io.h"
#include "test_repo.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <iostream>

namespace fs = std::filesystem;

namespace ksweep::check {
namespace {

std::vector<fs::path> corpus() {
    std::vector<fs::path> files;
    const fs::path fixtures = KSWEEP_FIXTURES;
    for (const char* dir :
         {"check/patches", "check/series", "mail/add_literal", "mail/add_header_macro"})
        for (const auto& entry : fs::directory_iterator(fixtures / dir))
            if (entry.path().extension() == ".patch" || entry.path().extension() == ".mbox")
                files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// git with no user or system configuration (mailinfo.scissors and the like change its output).
test::CommandResult git(const std::string& args, const fs::path& home) {
    return test::run("HOME=" + test::quote(home.string()) +
                     " GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git " + args);
}

TEST(MailinfoParity, EveryMailOfTheCorpusGivesGitsPatchByteForByte) {
    TempDir work("mailinfo-parity");
    size_t mails = 0, files = 0;
    for (const fs::path& file : corpus()) {
        SCOPED_TRACE(file.string());
        const std::string text = read_file(file).value();
        const fs::path split = work.path() / std::to_string(files++);
        fs::create_directories(split);
        auto r =
            git("mailsplit -b -o" + test::quote(split.string()) + " " + test::quote(file.string()),
                work.path());
        ASSERT_EQ(r.status, 0) << r.output;
        const std::vector<MboxMessage> messages = split_mbox(text);
        ASSERT_EQ(std::to_string(messages.size()) + "\n", r.output) << "the same messages";
        for (size_t k = 0; k < messages.size(); ++k) {
            char name[24];
            std::snprintf(name, sizeof name, "%04zu", k + 1);
            const fs::path mail = split / name;
            r = git("mailinfo " + test::quote(mail.string() + ".msg") + " " +
                        test::quote(mail.string() + ".patch") + " < " + test::quote(mail.string()) +
                        " > /dev/null",
                    work.path());
            ASSERT_EQ(r.status, 0) << r.output;
            ASSERT_TRUE(starts_with_mail_header(messages[k].text));
            const std::string theirs = read_file(mail.string() + ".patch").value();
            const std::string ours(read_mail(messages[k].text).patch());
            EXPECT_EQ(ours, theirs) << "message " << k + 1;
            ++mails;
        }
    }
    std::cout << "git mailinfo parity: " << mails << " mails in " << files << " files\n";
    EXPECT_GE(mails, 50u) << "the corpus shrank";
}

} // namespace
} // namespace ksweep::check
