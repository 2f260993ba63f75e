// What a tree's files are, by content: each file's git blob id and mode, so that every copy of
// the same files — two worktrees of one commit, a clone, Debian's unpacked source, a copy of
// it — has the same content key, and one changed byte gives another. Never a path or a name:
// the caches keyed by it (prepared build dirs, guest kernels, parse views, scratch bases) are
// shared by every checkout of the same content.
//
// A git checkout: the blob ids of HEAD's tree, and for what `git status` shows changed (staged,
// unstaged, untracked; not ignored) the content on disk. Any other directory: every file
// hashed once, memoised in the cache by (path, size, mtime, ctime, inode), so a second run stats
// the files and hashes none that did not change. A file changed within the last seconds is not
// memoised: its timestamps cannot yet tell the next change from this one.
#pragma once

#include <functional>
#include <git2.h>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::git {

// Which files count: all of them, or every file below some directories and, anywhere, the
// files whose name `named` accepts.
struct FileSelection {
    bool all = false;
    std::vector<std::string> dirs;                    // "include/", "arch/x86/": ending in '/'
    std::function<bool(std::string_view name)> named; // may be empty

    bool wants(std::string_view rel_path) const;
};

struct TreeFile {
    std::string path; // tree-relative, '/'-separated
    git_filemode_t mode = GIT_FILEMODE_BLOB;
    git_oid id{};
};

struct TreeContent {
    std::vector<TreeFile> files; // sorted by path
    // How the ids were had, for tests and notes: "git HEAD 1a2b3c4d5e6f, 2 changed files
    // hashed" or "43 of 25031 files hashed, the rest memoised".
    std::string how;
    size_t hashed = 0; // files whose content was read and hashed in this call
};

// The selected files of `tree` (a directory; in a git work tree or not). The memo lives in
// `cache_dir`/content/. Throws std::runtime_error (GitError for libgit2) when the tree cannot be
// read.
TreeContent tree_content(const std::string& tree, const FileSelection& selection,
                         const std::string& cache_dir);

// Hex SHA-256 over the files' paths, modes and blob ids, after `salt` (what the key is for).
std::string content_key(const TreeContent& content, std::string_view salt);

} // namespace ksweep::git
