#include "check/git_range.h"

#include "git/git_handle.h"

#include <memory>

namespace ksweep::check {

namespace {

using git::Commit;
using git::Object;
using git::RevWalk;
using git::Tree;
using git::TreeEntry;

// git::check's twin that throws CheckError, the error `ksweep check` reports.
void check(int rc, const std::string& what) {
    if (rc >= 0)
        return;
    const git_error* e = git_error_last();
    throw CheckError(what + ": " + (e && e->message ? e->message : "libgit2 error"));
}

// What a reader needs to outlive git_range_inputs(): the library, the repo, the tree.
struct ParentTree {
    std::shared_ptr<git::LibGit2> library;
    std::shared_ptr<git_repository> repo;
    Tree tree;
};

PreimageReader parent_reader(const std::shared_ptr<ParentTree>& parent) {
    return [parent](const std::string& path) -> std::optional<std::string> {
        git_tree_entry* raw_entry = nullptr;
        if (git_tree_entry_bypath(&raw_entry, parent->tree.get(), path.c_str()) < 0)
            return std::nullopt;
        TreeEntry entry(raw_entry);
        git_object* raw_object = nullptr;
        if (git_tree_entry_to_object(&raw_object, parent->repo.get(), entry.get()) < 0)
            return std::nullopt;
        Object object(raw_object);
        if (git_object_type(object.get()) != GIT_OBJECT_BLOB)
            return std::nullopt;
        auto* blob = reinterpret_cast<git_blob*>(object.get());
        return std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                           static_cast<size_t>(git_blob_rawsize(blob)));
    };
}

// The commits of "A..B" oldest first, or the one commit a single revision names.
std::vector<git_oid> commits_of(git_repository* repo, const std::string& range) {
    std::vector<git_oid> oids;
    if (range.find("..") == std::string::npos) {
        git_object* raw = nullptr;
        check(git_revparse_single(&raw, repo, range.c_str()), "bad revision '" + range + "'");
        Object object(raw);
        git_object* raw_peeled = nullptr;
        check(git_object_peel(&raw_peeled, object.get(), GIT_OBJECT_COMMIT),
              "'" + range + "' is not a commit");
        Object peeled(raw_peeled);
        oids.push_back(*git_object_id(peeled.get()));
        return oids;
    }
    git_revwalk* raw_walk = nullptr;
    check(git_revwalk_new(&raw_walk, repo), "cannot walk " + range);
    RevWalk walk(raw_walk);
    git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
    check(git_revwalk_push_range(walk.get(), range.c_str()), "bad range '" + range + "'");
    git_oid oid;
    while (git_revwalk_next(&oid, walk.get()) == 0)
        oids.push_back(oid);
    return oids;
}

} // namespace

std::vector<CheckInput> git_range_inputs(const std::string& repo_path, const std::string& range) {
    auto library = std::make_shared<git::LibGit2>();
    git_repository* raw_repo = nullptr;
    check(git_repository_open_ext(&raw_repo, repo_path.c_str(), 0, nullptr),
          "cannot open a git repository at " + repo_path);
    // Shared, not a git::Repository: every commit's preimage reader keeps it open.
    std::shared_ptr<git_repository> repo(raw_repo, git_repository_free);

    std::vector<CheckInput> inputs;
    for (const git_oid& oid : commits_of(repo.get(), range)) {
        git_commit* raw_commit = nullptr;
        check(git_commit_lookup(&raw_commit, repo.get(), &oid), "cannot read a commit");
        Commit commit(raw_commit);
        if (git_commit_parentcount(commit.get()) != 1)
            continue; // merges and root commits: git format-patch skips them too
        git_commit* raw_parent = nullptr;
        check(git_commit_parent(&raw_parent, commit.get(), 0), "cannot read a parent commit");
        Commit parent_commit(raw_parent);

        git::Buf mail;
        git_email_create_options options = GIT_EMAIL_CREATE_OPTIONS_INIT;
        check(git_email_create_from_commit(&mail.buf, commit.get(), &options),
              "cannot format commit " + std::string(git_oid_tostr_s(&oid)));
        std::string text = mail.str();

        auto parent = std::make_shared<ParentTree>();
        parent->library = library;
        parent->repo = repo;
        git_tree* raw_tree = nullptr;
        check(git_commit_tree(&raw_tree, parent_commit.get()), "cannot read a tree");
        parent->tree.reset(raw_tree);

        std::string sha = git_oid_tostr_s(&oid);
        const char* summary = git_commit_summary(commit.get());
        CheckInput input;
        input.filename = sha;
        input.vname = "Commit " + sha.substr(0, 12) + " (\"" + (summary ? summary : "") + "\")";
        input.text = std::move(text);
        input.preimage = parent_reader(parent);
        inputs.push_back(std::move(input));
    }
    return inputs;
}

} // namespace ksweep::check
