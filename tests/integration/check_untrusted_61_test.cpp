// Issue 25 on Debian's 6.1 tree, as it was found: a patch that reaches outside the tree is
// refused with nothing written or removed, and the issue's one-line patch (tpm_msleep(
// TPM_TIMEOUT) -> msleep(1) in tpm_tis_core.c) is the msleep(1) warning however mail carries
// it. The mails are made here from the tree by git format-patch, git send-email and Python's
// email package (tests/fixtures/mail/make_mails.sh); the tree is never written.
#include "check_tree_6_1.h"
#include "escape_lab.h"
#include "require_env.h"
#include "test_repo.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using ksweep::test::EscapeLab;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

constexpr const char* kTisCore = "drivers/char/tpm/tpm_tis_core.c";

class Untrusted61 : public ::testing::Test {
  protected:
    void SetUp() override {
        tree_ = ksweep::test::tree_6_1();
        if (tree_.empty() || !fs::exists(tree_ + "/" + kTisCore))
            KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
    }

    // A diff of the tree's `file` with its first `from` replaced by `to`, paths as git writes.
    std::string diff_replacing(const std::string& file, const std::string& from,
                               const std::string& to) {
        std::string text = ksweep::test::read_file(tree_ + "/" + file);
        const size_t at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        const std::string a = dir_.path() + "/a/" + file, b = dir_.path() + "/b/" + file;
        ksweep::test::write_file(a, text);
        ksweep::test::write_file(b, text.replace(at, from.size(), to));
        return run("cd " + quote(dir_.path()) + " && git diff --no-index --no-prefix a/" + file +
                       " b/" + file,
                   false)
            .output;
    }

    // The issue's patch as a commit of a one-file repository, then every mail of it.
    std::string mails() {
        const std::string repo = dir_.path() + "/repo";
        std::string out = dir_.path() + "/mails";
        ksweep::test::write_file(repo + "/" + kTisCore,
                                 ksweep::test::read_file(tree_ + "/" + kTisCore));
        ksweep::test::init_repo(repo);
        ksweep::test::run_git(repo, "add -A");
        ksweep::test::run_git(repo, "commit -qm base");
        const std::string text = ksweep::test::read_file(repo + "/" + kTisCore);
        const size_t at = text.find("tpm_msleep(TPM_TIMEOUT)");
        ksweep::test::write_file(
            repo + "/" + kTisCore,
            text.substr(0, at) + "msleep(1)" +
                text.substr(at + std::string("tpm_msleep(TPM_TIMEOUT)").size()));
        ksweep::test::run_git(repo, "commit -qam 'tpm: tis: sleep 1 ms' -m 'Gr\xc3\xbc\xc3\x9f"
                                    "e from M\xc3\xbcller.'");
        auto made = run("bash " + quote(std::string(KSWEEP_FIXTURES) + "/mail/make_mails.sh") +
                        " " + quote(repo) + " " + quote(out));
        EXPECT_EQ(made.status, 0) << made.output;
        return out;
    }

    ksweep::test::TempDir dir_;
    std::string tree_;
};

// The issue's patch: a header change (so check builds its shadow tree), a new file and a
// deleted one beside the tree, and the absolute path that crashed check.
TEST_F(Untrusted61, TheEscapesOfTheIssueWriteAndRemoveNothing) {
    EscapeLab lab(tree_, true);
    const std::string header = diff_replacing("include/linux/tpm.h", "#define TPM_DIGEST_SIZE 20",
                                              "#define TPM_DIGEST_SIZE 20 /* SHA-1 */");
    ASSERT_NE(header.find("+++ b/include/linux/tpm.h"), std::string::npos) << header;
    auto mail = [&](const std::string& diffs) {
        return "From: A Stranger <stranger@example.com>\nSubject: [PATCH] tpm: hostile\n\n---\n" +
               header + diffs;
    };
    const std::string escaped = "../../sentinel/escaped.h", victim = "../../sentinel/victim.c";
    lab.refused("dotdot.patch",
                mail("diff --git a/" + escaped + " b/" + escaped +
                     "\nnew file mode 100644\n"
                     "--- /dev/null\n+++ b/" +
                     escaped +
                     "\n@@ -0,0 +1 @@\n+int escaped;\n"
                     "diff --git a/" +
                     victim + " b/" + victim +
                     "\ndeleted file mode 100644\n"
                     "--- a/" +
                     victim +
                     "\n+++ /dev/null\n@@ -1 +0,0 @@\n"
                     "-int victim; /* must survive */\n"),
                escaped);
    const std::string absolute = (lab.sentinel() / "abs.h").string();
    lab.refused("absolute.patch",
                mail("diff --git a/" + absolute + " b/" + absolute +
                     "\nnew file mode 100644\n"
                     "--- /dev/null\n+++ b/" +
                     absolute + "\n@@ -0,0 +1 @@\n+int escaped;\n"),
                absolute);
    lab.refused("symlink.patch",
                mail("diff --git a/include/linux/evil b/include/linux/evil\n"
                     "new file mode 120000\n--- /dev/null\n+++ b/include/linux/evil\n"
                     "@@ -0,0 +1 @@\n+" +
                     lab.sentinel().string() + "\n\\ No newline at end of file\n"),
                "include/linux/evil");
    lab.refused("rename.patch",
                mail("diff --git a/" + std::string(kTisCore) +
                     " b/../../sentinel/moved.c\n"
                     "similarity index 100%\nrename from " +
                     kTisCore + "\nrename to ../../sentinel/moved.c\n"),
                "../../sentinel/moved.c");
    // The tree's own link (to arch/arm/boot/dts): a patch may not reach through it either.
    const std::string link = "scripts/dtc/include-prefixes/arm/escaped.h";
    ASSERT_TRUE(fs::is_symlink(tree_ + "/scripts/dtc/include-prefixes/arm"));
    lab.refused("through_link.patch",
                mail("diff --git a/" + link + " b/" + link +
                     "\nnew file mode 100644\n"
                     "--- /dev/null\n+++ b/" +
                     link + "\n@@ -0,0 +1 @@\n+int escaped;\n"),
                "scripts/dtc/include-prefixes/arm");
}

// Quoted-printable and base64 (git send-email), multipart with a text/x-patch attachment (git
// format-patch --attach, and base64 as mail clients attach), and a thread as b4 mbox gives it
// (cover letter, the patch, a reply): the warning and exit 1 each, the reply noted.
TEST_F(Untrusted61, EncodedMailsAndAThreadGiveTheMsleep1Warning) {
    const std::string out = mails();
    // The line the patch changes, as this tree has it (Debian's point releases move it).
    const std::string text = ksweep::test::read_file(tree_ + "/" + kTisCore);
    const std::string line = std::to_string(
        1 + std::count(text.begin(), text.begin() + text.find("tpm_msleep(TPM_TIMEOUT)"), '\n'));
    for (const char* name : {"qp.mbox", "base64.mbox", "attach.mbox", "inline.mbox",
                             "attach-base64.mbox", "latin1-qp.mbox", "crlf.mbox", "thread.mbox"}) {
        SCOPED_TRACE(name);
        auto r = run(std::string(KSWEEP_BINARY) + " check --tree " + quote(tree_) + " " +
                         quote(out + "/" + name) + " 2>&1",
                     false);
        EXPECT_EQ(r.status, 1) << r.output;
        EXPECT_NE(r.output.find("WARNING: msleep(1) < 20ms"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("FILE: " + std::string(kTisCore) + ":" + line + ":"),
                  std::string::npos)
            << r.output;
        if (std::string(name) == "thread.mbox") {
            EXPECT_NE(r.output.find("thread.mbox: message 3 (\"Re: [PATCH] tpm: tis: sleep 1 "
                                    "ms\"), a reply, no diff: skipped"),
                      std::string::npos)
                << r.output;
        }
    }
    // What made the undecoded mails bad input: a context line " " is "=20" in quoted-printable,
    // base64 hides every line, and mail clients attach the patch in base64.
    EXPECT_NE(ksweep::test::read_file(out + "/qp.mbox").find("\n=20\n"), std::string::npos);
    EXPECT_EQ(ksweep::test::read_file(out + "/base64.mbox").find("msleep"), std::string::npos);
    EXPECT_EQ(ksweep::test::read_file(out + "/attach-base64.mbox").find("msleep"),
              std::string::npos);
}

} // namespace
