// Reading patches: a single patch, a mailbox of patches (git format-patch or git send-email
// output, a thread as b4 mbox or a list archive gives it), or a plain unified diff. Mails are
// read as git am reads them (mail_text.h: quoted-printable, base64, multipart). Only what
// `check` needs is kept: which files change, how, and every hunk line with its line number in
// the input (checkpatch's "#N:"; in a mail whose body was encoded, the line of the decoded
// body, counted from where the body starts in the input).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::check {

struct DiffLine {
    char kind = ' ';         // ' ' context, '+' added, '-' removed
    std::string text;        // without the kind character
    bool no_newline = false; // followed by "\ No newline at end of file"
    unsigned input_line = 0; // 1-based line in the whole input
};

struct Hunk {
    unsigned old_start = 0, old_count = 0;
    unsigned new_start = 0, new_count = 0;
    unsigned header_line = 0; // input line of the "@@ ... @@"
    std::vector<DiffLine> lines;
};

struct FileDiff {
    std::string old_path; // tree-relative; empty when the file is new (/dev/null)
    std::string new_path; // tree-relative; empty when the file is deleted
    bool binary = false;
    bool copy = false; // "copy from/to": the old file stays
    // git's "index <old>..<new>" blob ids (abbreviated hex); empty without that line.
    std::string old_blob, new_blob;
    unsigned header_line = 0;
    std::vector<Hunk> hunks;

    bool is_new() const { return old_path.empty(); }
    bool is_deleted() const { return new_path.empty(); }
};

// One patch: a mail of a mailbox, or the whole input when it is not a mailbox.
struct Patch {
    std::string subject;     // the Subject: header, decoded and unfolded; "" for a bare diff
    std::string commit;      // the sha of a "From <sha> <date>" separator line, if any
    unsigned first_line = 0; // input line the patch starts at
    unsigned message = 1;    // which message of the input it is (1-based)
    // A reply ("Re: ...") in an input of several messages (a thread): never checked, as b4 am
    // applies no reply; a diff in it is a reviewer's suggestion, not the series.
    bool reply = false;
    std::vector<FileDiff> files; // empty for a mail without a diff (a cover letter, say)
    unsigned lines_checked = 0;  // hunk lines, counted the way checkpatch.pl counts them
};

// What outside input may cost (README "Running check on untrusted input"): an input larger, or
// with more messages or hunk lines, is refused as a whole, in bounded memory and time. A mail
// from a list is far below each (vger takes 100 KB); a larger range is several inputs
// (git format-patch -o DIR, then DIR).
inline constexpr size_t kMaxInputBytes = size_t{64} << 20;
inline constexpr size_t kMaxMessages = 10000;
inline constexpr size_t kMaxHunkLines = size_t{1} << 20;

// "[PATCH v2 3/5] ...", "[RFC PATCH 00/12] ...": where a subject's tag puts the mail in its
// series (git format-patch, b4). Reply prefixes ("Re:") are not skipped: a reply is no patch.
struct SeriesTag {
    unsigned version = 1;
    unsigned number = 0;
    unsigned total = 0;
};
std::optional<SeriesTag> series_tag(std::string_view subject);

// "[PATCH 0/3] ...", "[PATCH v2 00/12] ...", "[RFC PATCH 0/2] ...": the subject git
// format-patch --cover-letter and b4 give a series' cover letter.
bool is_cover_letter_subject(const std::string& subject);

// Why a message has no diff, by its subject: a cover letter, a reply ("Re: ..."), a message of
// a thread that is no patch (no "[PATCH" tag: a review, a discussion), or none of these: a mail
// that says it is a patch (or the only message of its input) and holds no diff git am reads.
enum class NoDiff { cover_letter, reply, not_a_patch, missing };
NoDiff why_no_diff(const Patch& patch, bool in_thread);

// Input that is not a usable patch: what() is "line N: what is wrong", preceded by
// "message M (\"subject\"): " in an input of several messages.
struct DiffError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Splits a mailbox on its "From <sha|sender> <weekday> ..." separators (mbox.h: an input
// without one is a single patch), decodes each mail as git am reads it (mail_text.h) and
// parses its patch; a message without a diff has no files. Every path is checked by
// core/tree_path.h and every file mode must be a regular file's. Throws DiffError for a
// malformed hunk, a refused path or mode, an input past the limits above, or an input with no
// message at all.
std::vector<Patch> read_patches(std::string_view input);

// Puts the patches of one input in [PATCH n/m] order (by version, then number) when every
// patch that has a diff (replies aside) carries such a tag, as b4 am applies a thread whose mails
// arrived out of order; the other messages keep their places. Returns a note naming what moved, ""
// when nothing did.
std::string put_in_series_order(std::vector<Patch>& patches);

} // namespace ksweep::check
