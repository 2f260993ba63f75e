// The patches `ksweep validate` checks: a directory of `git format-patch` mails (the cover
// letter is read for its base-commit, not validated), or a git range turned into one.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::validate {

struct SeriesPatch {
    std::string path;
    std::string subject;            // without "[PATCH v2 1/3]"
    std::vector<std::string> files; // tree-relative, from "diff --git a/X b/Y" (the new name)
};

struct Series {
    std::vector<SeriesPatch> patches; // in file name order (0001-, 0002-, ...)
    std::string base_commit;          // from a "base-commit:" line, "" when none
    std::string source;               // the directory or range, for the report
};

struct SeriesError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The Subject: header, decoded and unfolded, with a leading "[...]" tag removed. The mail is
// read as `ksweep check` reads it (check/unified_diff.h): throws check::DiffError for a
// malformed diff or a path that leaves the tree.
std::string patch_subject(std::string_view mail);
// Files changed by a patch (the new name; a deleted file's old one), in order, without
// duplicates, every one checked by core/tree_path.h. Throws check::DiffError as above.
std::vector<std::string> patch_files(std::string_view mail);
// The hex after "base-commit: " (git writes it at the bottom), or "".
std::string patch_base_commit(std::string_view mail);

// Reads every *.patch / *.mbox / *.eml file of `dir`; a "[PATCH 0/N]" cover letter (or a mail
// without a diff) is skipped. Throws SeriesError when there is no patch at all, and naming the
// file for one that is a symbolic link, too large, or not a patch ksweep check would read.
Series read_series_dir(const std::string& dir);

// `git format-patch` of RANGE ("A..B") from the repository at `repo` into `out_dir`; the base is
// A. Throws SeriesError with git's message when the range is not valid.
Series series_from_git_range(const std::string& repo, const std::string& range,
                             const std::string& out_dir);

} // namespace ksweep::validate
