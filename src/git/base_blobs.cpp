#include "git/base_blobs.h"

#include "core/file_io.h"
#include "git/git_handle.h"
#include "git/pack_writer.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

namespace fs = std::filesystem;

namespace ksweep::git {

namespace {

// `path` (tree-relative) is wanted: below one of `dirs`, or directly in one of `file_dirs`.
bool wanted(const std::string& path, const std::vector<std::string>& dirs,
            const std::vector<std::string>& file_dirs) {
    const std::string parent = fs::path(path).parent_path().string();
    if (std::find(file_dirs.begin(), file_dirs.end(), parent) != file_dirs.end())
        return true;
    return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) {
        return path.size() > d.size() && path.compare(0, d.size(), d) == 0 && path[d.size()] == '/';
    });
}

struct Missing {
    std::string path;
    git_oid id;
    git_filemode_t mode;
};

struct Walk {
    git_odb* odb;
    const std::vector<std::string>* dirs;
    const std::vector<std::string>* file_dirs;
    std::vector<Missing> missing;
};

int visit(const char* root, const git_tree_entry* entry, void* payload) {
    auto* walk = static_cast<Walk*>(payload);
    const std::string path = std::string(root) + git_tree_entry_name(entry);
    if (git_tree_entry_type(entry) == GIT_OBJECT_TREE) {
        // Skip a subtree no wanted path can be under.
        const bool may_hold = std::any_of(walk->dirs->begin(), walk->dirs->end(),
                                          [&](const std::string& d) {
                                              return d.starts_with(path + "/") || d == path ||
                                                     path.starts_with(d + "/");
                                          }) ||
                              std::any_of(walk->file_dirs->begin(), walk->file_dirs->end(),
                                          [&](const std::string& d) {
                                              return d.starts_with(path + "/") || d == path;
                                          });
        return may_hold ? 0 : 1; // 1: do not descend
    }
    if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB ||
        !wanted(path, *walk->dirs, *walk->file_dirs))
        return 0;
    if (!git_odb_exists_ext(walk->odb, git_tree_entry_id(entry), GIT_ODB_LOOKUP_NO_REFRESH))
        walk->missing.push_back({path, *git_tree_entry_id(entry), git_tree_entry_filemode(entry)});
    return 0;
}

// Writes the blobs of `texts` that `repo` lacks as one pack (none when it lacks none); returns
// how many were written.
size_t write_missing_blobs(git_repository* repo, const std::vector<std::string_view>& texts) {
    Odb odb = repository_odb(repo);
    std::set<std::string> seen;
    std::vector<std::string_view> missing;
    for (std::string_view text : texts) {
        const git_oid id = blob_id(text);
        if (seen.insert(oid_hex(id)).second &&
            !git_odb_exists_ext(odb.get(), &id, GIT_ODB_LOOKUP_NO_REFRESH))
            missing.push_back(text);
    }
    PackWriter pack(repo, missing.size());
    for (std::string_view text : missing)
        pack.add(pack_entry(GIT_OBJECT_BLOB, text));
    pack.commit();
    return missing.size();
}

} // namespace

git_oid blob_id(std::string_view text) {
    git_oid id;
    check(git_odb_hash(&id, text.data(), text.size(), GIT_OBJECT_BLOB), "git_odb_hash");
    return id;
}

size_t fill_base_blobs(git_repository* repo, const git_oid& base_commit, const std::string& tree,
                       const std::vector<std::string>& dirs,
                       const std::vector<std::string>& file_dirs) {
    Commit base = lookup_commit(repo, base_commit);
    Tree base_tree = commit_tree(base.get());
    Odb odb = repository_odb(repo);
    // The packs as they are now, read once: a blob the base lacks is then not sought again.
    check(git_odb_refresh(odb.get()), "git_odb_refresh");
    Walk walk{odb.get(), &dirs, &file_dirs, {}};
    check(git_tree_walk(base_tree.get(), GIT_TREEWALK_PRE, visit, &walk), "git_tree_walk");

    std::vector<std::string> texts;
    texts.reserve(walk.missing.size());
    for (const Missing& m : walk.missing) {
        const std::string path = tree + "/" + m.path;
        std::error_code ec;
        std::optional<std::string> text = m.mode == GIT_FILEMODE_LINK
                                              ? std::optional(fs::read_symlink(path, ec).string())
                                              : read_file(path);
        if (!text || ec)
            throw GitError("cannot read " + path + " to complete the base commit's content");
        const git_oid id = blob_id(*text);
        if (!git_oid_equal(&id, &m.id))
            throw GitError(path + " is not the file the base commit records: the tree changed "
                                  "since; run ksweep series again");
        texts.push_back(std::move(*text));
    }
    return write_missing_blobs(repo, {texts.begin(), texts.end()});
}

} // namespace ksweep::git
