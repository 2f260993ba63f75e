// libgit2 plumbing for every folder that uses it (series, check, the fixer's diff): one
// error-check helper and owning handles, so every object is freed in reverse order of creation
// without hand-written cleanup paths.
#pragma once

#include <git2.h>
#include <memory>
#include <stdexcept>
#include <string>

namespace ksweep::git {

// A libgit2 call failed: what() names the call and carries libgit2's own message.
struct GitError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws GitError when a libgit2 call returns an error code (negative); returns rc otherwise.
int check(int rc, const char* what);

// Keeps libgit2 initialised for as long as one of these lives.
class LibGit2 {
  public:
    LibGit2();
    ~LibGit2() { git_libgit2_shutdown(); }
    LibGit2(const LibGit2&) = delete;
    LibGit2& operator=(const LibGit2&) = delete;
};

template <typename T, void (*Free)(T*)> struct GitDeleter {
    void operator()(T* p) const { Free(p); }
};
template <typename T, void (*Free)(T*)> using GitPtr = std::unique_ptr<T, GitDeleter<T, Free>>;

using Repository = GitPtr<git_repository, git_repository_free>;
using Commit = GitPtr<git_commit, git_commit_free>;
using Tree = GitPtr<git_tree, git_tree_free>;
using TreeEntry = GitPtr<git_tree_entry, git_tree_entry_free>;
using TreeBuilder = GitPtr<git_treebuilder, git_treebuilder_free>;
using Blob = GitPtr<git_blob, git_blob_free>;
using Odb = GitPtr<git_odb, git_odb_free>;
using Signature = GitPtr<git_signature, git_signature_free>;
using Reference = GitPtr<git_reference, git_reference_free>;
using Diff = GitPtr<git_diff, git_diff_free>;
using DiffStats = GitPtr<git_diff_stats, git_diff_stats_free>;
using RevWalk = GitPtr<git_revwalk, git_revwalk_free>;
using Config = GitPtr<git_config, git_config_free>;
using Object = GitPtr<git_object, git_object_free>;
using Patch = GitPtr<git_patch, git_patch_free>;

// A git_buf that frees itself.
struct Buf {
    git_buf buf = GIT_BUF_INIT;
    Buf() = default;
    Buf(const Buf&) = delete;
    Buf& operator=(const Buf&) = delete;
    ~Buf() { git_buf_dispose(&buf); }
    std::string str() const { return buf.ptr ? std::string(buf.ptr, buf.size) : std::string(); }
};

std::string oid_hex(const git_oid& id);

Commit lookup_commit(git_repository* repo, const git_oid& id);
Odb repository_odb(git_repository* repo); // the repository's object database, owned
Tree commit_tree(git_commit* commit);

// The text of the blob at `path` in `tree`, or nullopt-like empty flag when absent.
bool read_blob_at(git_repository* repo, git_tree* tree, const std::string& path, std::string* out);

} // namespace ksweep::git
