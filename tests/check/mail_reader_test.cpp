// Mails as git am reads them: the same one-line patch in every way tests/fixtures/mail/ carries
// it (quoted-printable, base64, multipart attachments, ISO-8859-1, CRLF, a thread) reads as the
// same diff; threads keep their patches and say what they skipped.
#include "check/mail_text.h"
#include "check/mbox.h"
#include "check/unified_diff.h"
#include "check_test_support.h"
#include "core/file_io.h"

#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace ksweep::check {
namespace {

const fs::path kMails = fs::path(KSWEEP_FIXTURES) / "mail";

std::string mail(const std::string& name) {
    return read_file(kMails / name).value();
}

// The one patch with a diff in `text`: add_literal's msleep(3) in drivers/foo/foo.c.
void expect_add_literal(const std::string& name) {
    SCOPED_TRACE(name);
    const std::vector<Patch> patches = read_patches(mail("add_literal/" + name));
    std::vector<const Patch*> with_diff;
    for (const Patch& p : patches)
        if (!p.files.empty())
            with_diff.push_back(&p);
    ASSERT_EQ(with_diff.size(), 1u);
    const FileDiff& file = with_diff[0]->files.at(0);
    EXPECT_EQ(file.old_path, "drivers/foo/foo.c");
    EXPECT_EQ(file.new_path, "drivers/foo/foo.c");
    ASSERT_EQ(file.hunks.size(), 1u);
    std::vector<std::string> added;
    for (const DiffLine& l : file.hunks[0].lines)
        if (l.kind == '+')
            added.push_back(l.text);
    EXPECT_EQ(added, std::vector<std::string>{"\tmsleep(3);"});
    EXPECT_EQ(file.hunks[0].lines.size(), 7u);
}

TEST(MailReader, EveryTransferEncodingAndLayoutGivesTheSameDiff) {
    for (const char* name : {"plain.mbox", "qp.mbox", "base64.mbox", "attach.mbox", "inline.mbox",
                             "attach-base64.mbox", "latin1-qp.mbox", "crlf.mbox", "thread.mbox"})
        expect_add_literal(name);
}

TEST(MailReader, EncodedMailsAreNotReadableWithoutDecoding) {
    // What the reader gave before it decoded: the quoted-printable mail's "=3D"-free diff
    // still parsed, but the base64 one has no diff at all to a line reader.
    const std::string b64 = mail("add_literal/base64.mbox");
    EXPECT_EQ(b64.find("diff --git"), std::string::npos);
    EXPECT_EQ(read_patches(b64).at(0).files.size(), 1u);
}

TEST(MailReader, SubjectsAreDecodedToUtf8) {
    EXPECT_EQ(read_patches(mail("add_literal/latin1-qp.mbox")).at(0).subject,
              "[PATCH] foo: let the chip settle after reset \xc3\xa4");
    EXPECT_EQ(read_mail("Subject: =?UTF-8?q?tpm=3A_M=C3=BCller?=\n\nx\n").subject,
              "tpm: M\xc3\xbcller");
    EXPECT_EQ(read_mail("Subject: a =?UTF-8?q?=1B[2J?= b\n\nx\n").subject, "a  [2J b")
        << "no control byte reaches a terminal";
}

TEST(MailReader, QuotedPrintableSoftBreaksJoinLines) {
    const MailText m = read_mail("Subject: x\nContent-Transfer-Encoding: quoted-printable\n\n"
                                 "msg\n---\n+\tfoo(a =3D=\n b);\n");
    EXPECT_EQ(m.patch(), "---\n+\tfoo(a = b);\n");
    EXPECT_EQ(m.body_line, 4u);
}

TEST(MailReader, ThePatchStartsAtGitsPatchBreak) {
    // A commit message may quote a hunk: before "---" it is message, as git am reads it.
    const MailText m = read_mail("Subject: x\n\nWhy:\n@@ -1 +1 @@\n---\n a.c | 1 +\n");
    EXPECT_EQ(m.patch(), "---\n a.c | 1 +\n");
    EXPECT_TRUE(read_mail("Subject: x\n\nno patch here\n").patch().empty());
}

TEST(MailReader, ACharsetGitCannotConvertIsRefusedLikeGitAm) {
    try {
        read_patches("Subject: x\nContent-Type: text/plain; charset=x-no-such\n\n---\n");
        FAIL() << "an unconvertible charset was read";
    } catch (const DiffError& e) {
        EXPECT_NE(std::string(e.what()).find("charset 'x-no-such' cannot be converted"),
                  std::string::npos)
            << e.what();
    }
}

TEST(MailReader, LineNumbersOfAPlainMailAreTheInputsLines) {
    const std::string text = mail("add_literal/plain.mbox");
    const Hunk& hunk = read_patches(text).at(0).files.at(0).hunks.at(0);
    const DiffLine& added = hunk.lines.at(3);
    ASSERT_EQ(added.kind, '+');
    // checkpatch's "#N": the line of the input that holds "+\tmsleep(3);".
    size_t line = 1;
    for (size_t at = 0; at < text.find("+\tmsleep(3);"); ++at)
        line += text[at] == '\n';
    EXPECT_EQ(added.input_line, line);
}

TEST(MailReader, AThreadKeepsItsPatchAndSaysWhatTheOthersAre) {
    const std::vector<Patch> patches = read_patches(mail("add_literal/thread.mbox"));
    ASSERT_EQ(patches.size(), 3u);
    EXPECT_EQ(why_no_diff(patches[0], true), NoDiff::cover_letter);
    EXPECT_FALSE(patches[1].files.empty());
    EXPECT_EQ(patches[2].message, 3u);
    EXPECT_EQ(why_no_diff(patches[2], true), NoDiff::reply);
    // Alone, a mail without a diff is bad input unless it is a cover letter.
    EXPECT_EQ(why_no_diff(patches[2], false), NoDiff::missing);
    Patch review;
    review.subject = "tpm: a question about sleeps";
    EXPECT_EQ(why_no_diff(review, true), NoDiff::not_a_patch);
    Patch lost;
    lost.subject = "[PATCH 2/3] tpm: the diff went missing";
    EXPECT_EQ(why_no_diff(lost, true), NoDiff::missing);
}

TEST(MailReader, SeriesTags) {
    auto tag = series_tag("[RFC PATCH v3 02/12] x");
    ASSERT_TRUE(tag);
    EXPECT_EQ(tag->version, 3u);
    EXPECT_EQ(tag->number, 2u);
    EXPECT_EQ(tag->total, 12u);
    EXPECT_FALSE(series_tag("[PATCH] fix 1/2 of it"));
    EXPECT_EQ(series_tag("[linux-next] [PATCH 1/2] x")->number, 1u);
    EXPECT_FALSE(is_cover_letter_subject("Re: [PATCH 0/2] x"));
}

// What GMime would build objects for is counted first: a 7 MB mail of one-line headers took
// it 586 MB and 6 s, a 7 MB mail of 100,000 parts 360 MB, a 5000-deep nesting seconds.
TEST(MailReader, MailStructureIsBoundedBeforeGMimeParsesIt) {
    std::string headers = "Subject: [PATCH] x\n";
    for (int i = 0; i < 20000; ++i)
        headers += "X-A: b\n";
    EXPECT_EQ(testing::diff_error(headers + "\n---\n"),
              "line 1: more than 10000 header lines, the most ksweep reads in one mail");
    std::string parts = "Subject: [PATCH] x\nContent-Type: multipart/mixed; boundary=\"B\"\n\n";
    for (int i = 0; i < 2000; ++i)
        parts += "--B\nContent-Type: text/plain\n\nx\n";
    EXPECT_NE(testing::diff_error(parts + "--B--\n").find("more than 1000 MIME parts"),
              std::string::npos);
    std::string deep = "Subject: [PATCH] x\nContent-Type: multipart/mixed; boundary=b0\n\n";
    for (int i = 1; i < 100; ++i)
        deep += "--b" + std::to_string(i - 1) + "\nContent-Type: multipart/mixed; boundary=b" +
                std::to_string(i) + "\n\n";
    EXPECT_NE(testing::diff_error(deep).find("more than 64 multipart boundaries"),
              std::string::npos);
    // What real mails hold passes: the multipart corpus mail has two parts and one boundary.
    EXPECT_EQ(testing::diff_error(mail("add_literal/attach-base64.mbox")), "");
}

// b4 mbox gives a thread in arrival order: 2/2 may come before 1/2.
TEST(MailReader, AThreadIsCheckedInSeriesOrder) {
    const std::string mbox =
        read_file(fs::path(KSWEEP_FIXTURES) / "check/patches/series.mbox").value();
    const size_t second = mbox.find("From 2222222222222222222222222222222222222222");
    const std::string reversed = mbox.substr(second) + "\n" + mbox.substr(0, second);
    std::vector<Patch> patches = read_patches(reversed);
    ASSERT_EQ(patches.size(), 2u);
    EXPECT_EQ(series_tag(patches[0].subject)->number, 2u);
    EXPECT_EQ(put_in_series_order(patches),
              "patches checked in [PATCH n/m] order, not the order of the messages (1/2 is "
              "message 2, 2/2 is message 1)");
    EXPECT_EQ(series_tag(patches[0].subject)->number, 1u);
    EXPECT_EQ(put_in_series_order(patches), "") << "already in order";

    std::vector<Patch> twice = read_patches(mbox + "\n" + mbox);
    EXPECT_THROW(put_in_series_order(twice), DiffError);
}

} // namespace
} // namespace ksweep::check
