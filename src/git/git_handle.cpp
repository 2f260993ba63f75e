#include "git/git_handle.h"

namespace ksweep::git {

// A partial clone (`git clone --filter=blob:none`, or validate's checkout of a scratch
// repository) reads like any repository for what ksweep does: the blobs it lacks belong to files
// nobody checked out, which ksweep never reads. `git sparse-checkout` turns on per-worktree
// configuration, which holds its own settings; ksweep reads none of them. libgit2 refuses to
// open a repository with either extension unless told so.
LibGit2::LibGit2() {
    git_libgit2_init();
    const char* extensions[] = {"partialclone", "worktreeconfig"};
    git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, extensions, std::size(extensions));
}

int check(int rc, const char* what) {
    if (rc >= 0)
        return rc;
    const git_error* e = git_error_last();
    throw GitError(std::string(what) + ": " +
                   (e && e->message ? e->message : "libgit2 error " + std::to_string(rc)));
}

std::string oid_hex(const git_oid& id) {
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &id);
    return hex;
}

Odb repository_odb(git_repository* repo) {
    git_odb* raw = nullptr;
    check(git_repository_odb(&raw, repo), "git_repository_odb");
    return Odb(raw);
}

Commit lookup_commit(git_repository* repo, const git_oid& id) {
    git_commit* c = nullptr;
    check(git_commit_lookup(&c, repo, &id), "git_commit_lookup");
    return Commit(c);
}

Tree commit_tree(git_commit* commit) {
    git_tree* t = nullptr;
    check(git_commit_tree(&t, commit), "git_commit_tree");
    return Tree(t);
}

bool read_blob_at(git_repository* repo, git_tree* tree, const std::string& path, std::string* out) {
    git_tree_entry* raw = nullptr;
    int rc = git_tree_entry_bypath(&raw, tree, path.c_str());
    if (rc == GIT_ENOTFOUND)
        return false;
    check(rc, "git_tree_entry_bypath");
    TreeEntry entry(raw);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB)
        return false;
    git_blob* b = nullptr;
    check(git_blob_lookup(&b, repo, git_tree_entry_id(entry.get())), "git_blob_lookup");
    Blob blob(b);
    out->assign(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                static_cast<size_t>(git_blob_rawsize(blob.get())));
    return true;
}

} // namespace ksweep::git
