// What one patch does to each file it touches, applied in memory on top of the series so far:
// the text before and after, which lines of the new text it adds, and what it renames or copies.
#pragma once

#include "check/hunk_apply.h"
#include "check/tree_state.h"
#include "check/unified_diff.h"

#include <optional>
#include <string>
#include <vector>

namespace ksweep::check {

struct FileChange {
    const FileDiff* diff = nullptr;
    std::string path;                  // where the file is after the patch ("" if deleted)
    std::string old_path;              // where it was before ("" if new)
    std::optional<std::string> before; // the text it replaces; nullopt for a new file or a copy
    std::optional<std::string> after;  // nullopt when deleted
    PostImage post;                    // the added lines of `after`
};

// Applies every file of `patch` to `state` (in order: a header the patch adds is in place
// before a C file that uses it is scanned). Throws CheckError, with the patch's subject, for
// a file that is missing, already exists, or does not take its hunks, and TreePathError for a
// path through a symbolic link of the tree at `tree_name` (core/tree_path.h).
std::vector<FileChange> apply_patch(const Patch& patch, const TreeState& state,
                                    const std::string& tree_name);

// `overlay` after the changes: renamed and deleted files gone, the rest with their new text.
void record_changes(const std::vector<FileChange>& changes, Overlay& overlay);

} // namespace ksweep::check
