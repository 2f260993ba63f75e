// What identifies a tree for the builds ksweep caches from it (a prepared build directory, a
// guest kernel): the content of everything kbuild's configuration and prepare steps read —
// every Kconfig*, Makefile* and Kbuild* file, and all of scripts/, include/, tools/ and
// arch/<arch>/ — as git blob ids (git/tree_content.h): from HEAD and git status in a git
// checkout, hashed and memoised anywhere else. Never the tree's path or name: two worktrees of
// one commit, a clone and an unpacked copy of the same files share every build. A driver's .c
// file is not in it: editing one (the patch under test) keeps the prepared build, editing a
// header or a Kconfig makes a new one.
#pragma once

#include <string>

namespace ksweep::kbuild {

struct TreeFingerprint {
    std::string key; // hex SHA-256 over the prepare inputs' paths and content
    std::string how; // how the content was read (git HEAD and status, or the memo)
};

// The fingerprint of `tree`'s prepare inputs; `arch` is kbuild's SRCARCH ("x86"). The memo of
// a tree outside git lives in `cache_dir` (default: cache_dir()). Throws std::runtime_error
// when the tree cannot be read.
TreeFingerprint tree_fingerprint(const std::string& tree, const std::string& cache_dir = "",
                                 const std::string& arch = "x86");

// The compiler kbuild will use (`gcc --version`'s first line): part of every build key, since
// Kconfig records it and a different compiler means a different build.
std::string compiler_identity();

} // namespace ksweep::kbuild
