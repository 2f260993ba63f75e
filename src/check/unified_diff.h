// Reading patches: a single patch, a mailbox of patches (git format-patch or git send-email
// output), or a plain unified diff. Only what `check` needs is kept: which files change, how,
// and every hunk line with its line number in the input (checkpatch's "#N:").
#pragma once

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
    std::string subject;         // the Subject: header, unfolded; empty for a bare diff
    std::string commit;          // the sha of a "From <sha> <date>" separator line, if any
    unsigned first_line = 0;     // input line the patch starts at
    std::vector<FileDiff> files; // empty for a mail without a diff (a cover letter, say)
    unsigned lines_checked = 0;  // hunk lines, counted the way checkpatch.pl counts them
};

// "[PATCH 0/3] ...", "[PATCH v2 00/12] ...", "[RFC PATCH 0/2] ...": the subject git
// format-patch --cover-letter and b4 give a series' cover letter.
bool is_cover_letter_subject(const std::string& subject);

// Input that is not a usable patch: what() is "line N: what is wrong".
struct DiffError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Splits a mailbox on its "From <sha|sender> <weekday> ..." separators (an input without one
// is a single patch) and parses each part; a part without a diff has no files. Throws
// DiffError for a malformed hunk or an input with no part at all.
std::vector<Patch> read_patches(std::string_view input);

} // namespace ksweep::check
