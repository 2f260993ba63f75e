// `ksweep check` on patches from strangers, on the fixture tree (issue 25): every way a patch
// could reach outside the tree is refused with nothing written or removed; every way mail
// carries a patch (quoted-printable, base64, attachments, ISO-8859-1, CRLF, a thread) is read
// as git am reads it. check_linux61_test.cpp has the same on Debian's 6.1 tree.
#include "escape_lab.h"
#include "test_repo.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using ksweep::test::EscapeLab;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

const std::string kTree = std::string(KSWEEP_FIXTURES) + "/check/tree";
const std::string kMails = std::string(KSWEEP_FIXTURES) + "/mail/add_literal";

// `ksweep check --lexical-only` of `input` on the fixture tree (the mails' warning is a
// literal); its notes with the output when `notes`.
ksweep::test::CommandResult check(const std::string& input, bool notes = false) {
    return run(std::string(KSWEEP_BINARY) + " check --lexical-only --tree " + quote(kTree) + " " +
                   input + (notes ? " 2>&1" : ""),
               false);
}

// A header change: it makes check build a shadow tree, where the escapes of issue 25 wrote.
std::string header_change() {
    std::string patch = ksweep::test::read_file(std::string(KSWEEP_FIXTURES) +
                                                "/check/patches/header_define_made_small.patch");
    size_t from = patch.find("diff --git");
    return patch.substr(from, patch.find("-- \n") - from);
}

std::string mail(const std::string& diffs) {
    return "From: A Stranger <stranger@example.com>\nSubject: [PATCH] foo: poll more often\n\n"
           "Signed-off-by: A Stranger <stranger@example.com>\n---\n" +
           diffs;
}

std::string new_file(const std::string& path) {
    return "diff --git a/" + path + " b/" + path + "\nnew file mode 100644\n--- /dev/null\n+++ b/" +
           path + "\n@@ -0,0 +1 @@\n+int escaped;\n";
}

std::string deleted_file(const std::string& path) {
    return "diff --git a/" + path + " b/" + path + "\ndeleted file mode 100644\n--- a/" + path +
           "\n+++ /dev/null\n@@ -1 +0,0 @@\n-int victim; /* must survive */\n";
}

// The 1-based line of `text` that starts with `start`.
unsigned line_of(const std::string& text, const std::string& start) {
    const size_t at = text.find("\n" + start);
    return 2 + static_cast<unsigned>(std::count(text.begin(), text.begin() + at, '\n'));
}

TEST(CheckUntrusted, DotDotNeitherWritesNorRemovesOutside) {
    EscapeLab lab(kTree, false);
    const std::string patch = mail(header_change() + new_file("../../sentinel/escaped.h") +
                                   deleted_file("../../sentinel/victim.c"));
    const std::string line = lab.refused("dotdot.patch", patch, "../../sentinel/escaped.h");
    EXPECT_NE(line.find("dotdot.patch: line " +
                        std::to_string(line_of(patch, "diff --git a/../../sentinel/escaped.h")) +
                        ": path ../../sentinel/escaped.h: a '..' component leaves the tree"),
              std::string::npos)
        << line;
}

TEST(CheckUntrusted, AnAbsolutePathIsRefusedNotACrash) {
    EscapeLab lab(kTree, false);
    const std::string target = (lab.sentinel() / "abs.h").string();
    const std::string line = lab.refused(
        "absolute.patch", mail(header_change() + new_file("/" + target.substr(1))), target);
    EXPECT_NE(line.find("an absolute path"), std::string::npos) << line;
}

TEST(CheckUntrusted, ASymlinkModeIsRefusedSayingWhy) {
    EscapeLab lab(kTree, false);
    const std::string link = "diff --git a/drivers/foo/evil b/drivers/foo/evil\n"
                             "new file mode 120000\n--- /dev/null\n+++ b/drivers/foo/evil\n"
                             "@@ -0,0 +1 @@\n+" +
                             lab.sentinel().string() + "\n\\ No newline at end of file\n";
    const std::string line = lab.refused(
        "symlink.patch", mail(header_change() + link + new_file("drivers/foo/evil/x.h")),
        "drivers/foo/evil");
    EXPECT_NE(line.find("a symbolic link (mode 120000): ksweep check reads C files and has no "
                        "use for a link"),
              std::string::npos)
        << line;
}

TEST(CheckUntrusted, ARenameToDotDotIsRefused) {
    EscapeLab lab(kTree, false);
    lab.refused("rename.patch",
                mail(header_change() +
                     "diff --git a/drivers/foo/foo_irq.c b/../../sentinel/moved.c\n"
                     "similarity index 100%\nrename from drivers/foo/foo_irq.c\n"
                     "rename to ../../sentinel/moved.c\n"),
                "../../sentinel/moved.c");
}

TEST(CheckUntrusted, APathThroughASymlinkedDirectoryOfTheTreeIsRefused) {
    EscapeLab lab(kTree, false);
    fs::create_directory_symlink(lab.sentinel(), lab.tree() / "drivers/out");
    const std::string line = lab.refused("through_link.patch",
                                         mail(header_change() + new_file("drivers/out/escaped.h") +
                                              deleted_file("drivers/out/victim.c")),
                                         "drivers/out");
    EXPECT_NE(line.find("'drivers/out' is a symbolic link in the tree"), std::string::npos) << line;
}

// The same one-line patch (msleep(3) added to drivers/foo/foo.c) in every way mail carries
// it: each is the warning and exit 1, as the plain mail is.
TEST(CheckUntrusted, EncodedMailsAreReadAsGitAmReadsThem) {
    for (const char* name : {"plain.mbox", "qp.mbox", "base64.mbox", "attach.mbox", "inline.mbox",
                             "attach-base64.mbox", "latin1-qp.mbox", "crlf.mbox"}) {
        SCOPED_TRACE(name);
        auto r = check(quote(kMails + "/" + name));
        EXPECT_EQ(r.status, 1) << r.output;
        EXPECT_NE(r.output.find("WARNING: msleep(3) < 20ms"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("+\tmsleep(3);"), std::string::npos) << r.output;
    }
}

TEST(CheckUntrusted, AThreadIsCheckedWithTheReplyNoted) {
    auto r = check(quote(kMails + "/thread.mbox"), true);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("WARNING: msleep(3) < 20ms"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("thread.mbox: message 1 (\"[PATCH 0/1] *** SUBJECT HERE ***\"), a "
                            "cover letter, no diff: skipped"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("thread.mbox: message 3 (\"Re: [PATCH] foo: let the chip settle "
                            "after reset\"), a reply, no diff: skipped"),
              std::string::npos)
        << r.output;
}

// A reviewer's "something like this?" diff in a reply is not part of the series: b4 am applies
// no reply, and neither does the gate.
TEST(CheckUntrusted, ADiffInAReplyIsNotChecked) {
    ksweep::test::TempDir dir;
    const std::string thread = ksweep::test::read_file(kMails + "/thread.mbox");
    const std::string patch = ksweep::test::read_file(kMails + "/plain.mbox");
    std::string suggestion = patch.substr(patch.find("diff --git"));
    suggestion.replace(suggestion.find("msleep(3)"), 9, "msleep(4)");
    ksweep::test::write_file(dir.path() + "/t.mbox",
                             thread +
                                 "From r@example.com Thu Dec  3 07:13:34 2026\n"
                                 "From: A Reviewer <r@example.com>\n"
                                 "Subject: Re: [PATCH 1/1] foo: let the chip settle\n\n"
                                 "Something like this?\n\n" +
                                 suggestion);
    auto r = check(quote(dir.path() + "/t.mbox"), true);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("WARNING: msleep(3) < 20ms"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("msleep(4) < 20ms"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("message 4 (\"Re: [PATCH 1/1] foo: let the chip settle\"), a reply: "
                            "skipped, its diff not checked (b4 am applies no reply)"),
              std::string::npos)
        << r.output;
}

// A mail that says it is a patch but holds none git am could read is still bad input, naming
// the message: a thread is no excuse for losing a patch.
TEST(CheckUntrusted, APatchMailWithoutADiffInAThreadIsBadInput) {
    ksweep::test::TempDir dir;
    std::string thread = ksweep::test::read_file(kMails + "/thread.mbox");
    const size_t diff = thread.find("diff --git");
    thread.erase(diff, thread.find("-- \n", diff) - diff);
    ksweep::test::write_file(dir.path() + "/t.mbox", thread);
    auto r = check(quote(dir.path() + "/t.mbox"), true);
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("t.mbox: message 2 (\"[PATCH 1/1] foo: let the chip settle after "
                            "reset\"): line "),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("its subject says it is a patch, but it holds no diff"),
              std::string::npos)
        << r.output;
}

TEST(CheckUntrusted, AnInputPastTheLimitIsRefusedUnread) {
    auto r = check("- < /dev/zero", true); // no end: refused at the limit
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("-: larger than the 64 MiB ksweep reads of one input"),
              std::string::npos)
        << r.output;
}

} // namespace
