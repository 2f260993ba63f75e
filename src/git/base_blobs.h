// The content of a scratch repository's base, written when something needs it. The base commit
// of a tree outside git records the whole tree (every tree object, so its id is that of a full
// snapshot and a base-commit line means the same as ever) but holds, of its files, only the
// top-level ones: the rest is the tree on disk, a few hundred MB packed for a kernel that no run
// reads whole. This is what git calls a blobless partial clone. A series writes the files it
// changes as they were (their diffs need them; series.cpp, after checking each against the id
// the base records), validate the directories it checks out (here).
#pragma once

#include <git2.h>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::git {

// The blob id git gives `text`.
git_oid blob_id(std::string_view text);

// Writes the blobs of `base_commit`'s files below `dirs` (with their subdirectories) and
// directly in `file_dirs` (not their subdirectories) that `repo` lacks, read from `tree` on disk
// (tree-relative paths, '/'-separated, no trailing '/'). Throws GitError when a file on disk is
// not the one the base records: the tree changed since the base was made. Returns how many
// were written.
size_t fill_base_blobs(git_repository* repo, const git_oid& base_commit, const std::string& tree,
                       const std::vector<std::string>& dirs,
                       const std::vector<std::string>& file_dirs);

} // namespace ksweep::git
