#include "git/tree_content.h"

#include "core/file_io.h"
#include "core/parallel.h"
#include "core/sha256.h"
#include "git/git_handle.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>

namespace fs = std::filesystem;

namespace ksweep::git {

namespace {

// A file changed this recently is hashed but not memoised: a second change within the
// timestamps' granularity would leave the same (size, mtime, ctime).
constexpr long long kRacyNanoseconds = 2'000'000'000LL;

long long nanoseconds(const timespec& t) {
    return static_cast<long long>(t.tv_sec) * 1'000'000'000LL + t.tv_nsec;
}

// What a memo entry says about a file when it was hashed.
struct Stamp {
    long long size = 0, mtime = 0, ctime = 0;
    unsigned long long inode = 0;
    bool operator==(const Stamp&) const = default;
};

Stamp stamp_of(const struct stat& st) {
    return {static_cast<long long>(st.st_size), nanoseconds(st.st_mtim), nanoseconds(st.st_ctim),
            static_cast<unsigned long long>(st.st_ino)};
}

struct MemoEntry {
    Stamp stamp;
    git_filemode_t mode = GIT_FILEMODE_BLOB;
    git_oid id{};
};

// The blob ids of one tree's files as last hashed: <cache>/content/<hash of the tree's path>.
// One line a file: "<id> <mode> <size> <mtime> <ctime> <inode> <path>".
class ContentMemo {
  public:
    ContentMemo(const std::string& tree, const std::string& cache_dir) : tree_(tree) {
        if (cache_dir.empty())
            return;
        path_ = fs::path(cache_dir) / "content" /
                (to_hex(sha256("ksweep content memo v1\n" + tree)).substr(0, 24) + ".memo");
        std::ifstream in(path_);
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string hex, rel;
            unsigned mode = 0;
            MemoEntry e;
            fields >> hex >> std::oct >> mode >> std::dec >> e.stamp.size >> e.stamp.mtime >>
                e.stamp.ctime >> e.stamp.inode;
            if (!fields || fields.get() != ' ' || !std::getline(fields, rel) ||
                git_oid_fromstr(&e.id, hex.c_str()) != 0)
                continue; // a torn or foreign line: that file is hashed again
            e.mode = static_cast<git_filemode_t>(mode);
            entries_.emplace(std::move(rel), e);
        }
    }

    const MemoEntry* find(const std::string& rel, const Stamp& stamp) const {
        auto it = entries_.find(rel);
        return it != entries_.end() && it->second.stamp == stamp ? &it->second : nullptr;
    }

    void remember(const std::string& rel, const MemoEntry& e) {
        entries_[rel] = e;
        changed_ = true;
    }

    // Written whole to a temporary file, then renamed: a reader sees the old memo or the new.
    void save() const {
        if (!changed_ || path_.empty())
            return;
        std::error_code ec;
        fs::create_directories(path_.parent_path(), ec);
        const fs::path tmp = path_.string() + ".tmp" + std::to_string(getpid());
        {
            std::ofstream out(tmp, std::ios::trunc);
            out << "# " << tree_ << '\n'; // for `ksweep cache`; not a file line
            char hex[GIT_OID_HEXSZ + 1];
            for (const auto& [rel, e] : entries_) {
                git_oid_tostr(hex, sizeof hex, &e.id);
                out << hex << ' ' << std::oct << static_cast<unsigned>(e.mode) << std::dec << ' '
                    << e.stamp.size << ' ' << e.stamp.mtime << ' ' << e.stamp.ctime << ' '
                    << e.stamp.inode << ' ' << rel << '\n';
            }
            if (!out)
                return; // a memo that cannot be written costs the next run time, nothing else
        }
        fs::rename(tmp, path_, ec);
        if (ec)
            fs::remove(tmp, ec);
    }

  private:
    std::string tree_;
    fs::path path_;
    std::unordered_map<std::string, MemoEntry> entries_;
    bool changed_ = false;
};

std::optional<git_filemode_t> mode_of(const struct stat& st) {
    if (S_ISLNK(st.st_mode))
        return GIT_FILEMODE_LINK;
    if (S_ISREG(st.st_mode))
        return (st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
    return std::nullopt; // sockets, fifos, devices: git has no form for them
}

// A file on disk whose blob id is wanted.
struct DiskFile {
    std::string rel;
    struct stat st {};
};

// Hashes the files the memo does not know (on `jobs` threads), memoises what is not racy.
std::vector<TreeFile> ids_of(const std::string& root, std::vector<DiskFile> files,
                             ContentMemo& memo, size_t* hashed) {
    std::vector<TreeFile> out(files.size());
    std::vector<size_t> unknown;
    for (size_t i = 0; i < files.size(); ++i) {
        out[i].path = files[i].rel;
        out[i].mode = *mode_of(files[i].st);
        if (const MemoEntry* e = memo.find(files[i].rel, stamp_of(files[i].st));
            e && e->mode == out[i].mode)
            out[i].id = e->id;
        else
            unknown.push_back(i);
    }
    std::vector<char> ok(files.size(), 1);
    parallel_for(unknown.size(), 2, [&](size_t k) {
        const size_t i = unknown[k];
        const std::string path = root + "/" + files[i].rel;
        std::string content;
        if (out[i].mode == GIT_FILEMODE_LINK) {
            std::error_code ec;
            content = fs::read_symlink(path, ec).string();
            ok[i] = !ec;
        } else if (auto text = read_file(path)) {
            content = std::move(*text);
        } else {
            ok[i] = 0;
        }
        ok[i] =
            ok[i] && git_odb_hash(&out[i].id, content.data(), content.size(), GIT_OBJECT_BLOB) == 0;
    });
    const long long now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
    for (size_t i : unknown) {
        if (!ok[i])
            throw std::runtime_error("cannot read " + root + "/" + files[i].rel);
        const Stamp stamp = stamp_of(files[i].st);
        if (std::max(stamp.mtime, stamp.ctime) < now - kRacyNanoseconds)
            memo.remember(files[i].rel, {stamp, out[i].mode, out[i].id});
    }
    *hashed += unknown.size();
    return out;
}

// Could a directory at `rel` ("drivers/char/") hold a selected file?
bool may_hold(const FileSelection& s, const std::string& rel) {
    if (s.all || s.named)
        return true;
    return std::any_of(s.dirs.begin(), s.dirs.end(), [&](const std::string& d) {
        return d.starts_with(rel) || rel.starts_with(d);
    });
}

// Every selected regular file and symlink below root/rel, .git left out.
void walk(const std::string& root, const std::string& rel, const FileSelection& s,
          std::vector<DiskFile>& out) {
    const std::string dir = rel.empty() ? root : root + "/" + rel;
    DIR* d = opendir(dir.c_str());
    if (!d)
        throw std::runtime_error("cannot read " + dir + ": " + std::strerror(errno));
    std::vector<std::pair<std::string, unsigned char>> entries;
    while (dirent* e = readdir(d)) {
        std::string name = e->d_name;
        if (name != "." && name != ".." && name != ".git")
            entries.emplace_back(std::move(name), e->d_type);
    }
    closedir(d);
    for (auto& [name, type] : entries) {
        const std::string path = rel + name;
        if (type == DT_DIR) {
            if (may_hold(s, path + "/"))
                walk(root, path + "/", s, out);
            continue;
        }
        if (type != DT_UNKNOWN && type != DT_REG && type != DT_LNK)
            continue;
        if (!s.wants(path))
            continue;
        DiskFile f{path, {}};
        if (lstat((root + "/" + path).c_str(), &f.st) != 0)
            continue;                // gone since readdir
        if (S_ISDIR(f.st.st_mode)) { // DT_UNKNOWN file systems
            if (may_hold(s, path + "/"))
                walk(root, path + "/", s, out);
            continue;
        }
        if (mode_of(f.st))
            out.push_back(std::move(f));
    }
}

TreeContent disk_content(const std::string& tree, const FileSelection& s, ContentMemo& memo) {
    std::vector<DiskFile> files;
    walk(tree, "", s, files);
    TreeContent c;
    c.files = ids_of(tree, std::move(files), memo, &c.hashed);
    c.how = std::to_string(c.hashed) + " of " + std::to_string(c.files.size()) +
            " files hashed, the rest memoised";
    return c;
}

struct HeadWalk {
    const FileSelection* selection;
    std::map<std::string, TreeFile>* files;
};

int visit_head_entry(const char* root, const git_tree_entry* entry, void* payload) {
    auto* w = static_cast<HeadWalk*>(payload);
    const std::string path = std::string(root) + git_tree_entry_name(entry);
    switch (git_tree_entry_type(entry)) {
    case GIT_OBJECT_TREE:
        return may_hold(*w->selection, path + "/") ? 0 : 1; // 1: skip this subtree
    case GIT_OBJECT_BLOB:
        if (w->selection->wants(path))
            (*w->files)[path] = {path, git_tree_entry_filemode(entry), *git_tree_entry_id(entry)};
        return 0;
    default:
        return 0; // a submodule's commit: not a file of this tree
    }
}

// HEAD's ids, then every path git status names read again from disk.
TreeContent git_content(git_repository* repo, const std::string& tree, const std::string& prefix,
                        const FileSelection& s, ContentMemo& memo) {
    std::map<std::string, TreeFile> files;
    git_oid head_id{};
    check(git_reference_name_to_id(&head_id, repo, "HEAD"), "resolving HEAD");
    Commit head = lookup_commit(repo, head_id);
    Tree root = commit_tree(head.get());
    Tree sub;
    git_tree* walked = root.get();
    if (!prefix.empty()) {
        git_tree_entry* raw = nullptr;
        if (git_tree_entry_bypath(&raw, root.get(), prefix.c_str()) == 0) {
            TreeEntry entry(raw);
            git_object* obj = nullptr;
            if (git_tree_entry_type(entry.get()) == GIT_OBJECT_TREE &&
                git_tree_entry_to_object(&obj, repo, entry.get()) == 0)
                sub.reset(reinterpret_cast<git_tree*>(obj));
        }
        walked = sub.get();
    }
    if (walked) {
        HeadWalk w{&s, &files};
        check(git_tree_walk(walked, GIT_TREEWALK_PRE, visit_head_entry, &w), "git_tree_walk");
    }

    git_status_options options = GIT_STATUS_OPTIONS_INIT;
    options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
    options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
                    GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
    std::string scope = prefix.empty() ? "" : prefix + "/";
    char* spec[] = {scope.data()};
    if (!prefix.empty())
        options.pathspec = {spec, 1};
    git_status_list* raw_list = nullptr;
    check(git_status_list_new(&raw_list, repo, &options), "git_status_list_new");
    GitPtr<git_status_list, git_status_list_free> list(raw_list);
    const std::string workdir = git_repository_workdir(repo);
    std::vector<DiskFile> changed;
    std::set<std::string> named;
    for (size_t i = 0, n = git_status_list_entrycount(list.get()); i < n; ++i) {
        const git_status_entry* e = git_status_byindex(list.get(), i);
        for (const git_diff_delta* d : {e->head_to_index, e->index_to_workdir}) {
            if (!d)
                continue;
            for (const char* p : {d->old_file.path, d->new_file.path}) {
                if (!p || !std::string_view(p).starts_with(scope))
                    continue;
                const std::string rel = std::string(p).substr(scope.size());
                if (!s.wants(rel) || !named.insert(rel).second)
                    continue;
                files.erase(rel);
                DiskFile f{rel, {}};
                if (lstat((workdir + p).c_str(), &f.st) == 0 && mode_of(f.st))
                    changed.push_back(std::move(f));
            }
        }
    }
    TreeContent c;
    for (TreeFile& f : ids_of(tree, std::move(changed), memo, &c.hashed))
        files[f.path] = std::move(f);
    for (auto& [path, f] : files)
        c.files.push_back(std::move(f));
    c.how = "git HEAD " + oid_hex(head_id).substr(0, 12) + ", " + std::to_string(named.size()) +
            " changed files read from disk";
    return c;
}

} // namespace

bool FileSelection::wants(std::string_view rel) const {
    if (all)
        return true;
    if (std::any_of(dirs.begin(), dirs.end(),
                    [&](const std::string& d) { return rel.starts_with(d); }))
        return true;
    if (!named)
        return false;
    const size_t slash = rel.rfind('/');
    return named(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
}

TreeContent tree_content(const std::string& tree_arg, const FileSelection& selection,
                         const std::string& cache_dir) {
    LibGit2 libgit2;
    std::error_code ec;
    const std::string tree = fs::canonical(tree_arg, ec).string();
    if (ec || !fs::is_directory(tree))
        throw std::runtime_error("cannot read tree " + tree_arg + ": not a directory");
    ContentMemo memo(tree, cache_dir);
    git_repository* raw = nullptr;
    TreeContent content;
    if (git_repository_open_ext(&raw, tree.c_str(), 0, nullptr) == 0) {
        Repository repo(raw);
        const char* workdir = git_repository_workdir(repo.get());
        if (workdir && git_repository_head_unborn(repo.get()) == 0) {
            const std::string wd = fs::canonical(workdir).string();
            const std::string prefix = tree.size() > wd.size() ? tree.substr(wd.size() + 1) : "";
            content = git_content(repo.get(), tree, prefix, selection, memo);
        } else {
            content = disk_content(tree, selection, memo);
        }
    } else {
        content = disk_content(tree, selection, memo);
    }
    std::sort(content.files.begin(), content.files.end(),
              [](const TreeFile& a, const TreeFile& b) { return a.path < b.path; });
    memo.save();
    return content;
}

std::string content_key(const TreeContent& content, std::string_view salt) {
    Sha256 hash;
    hash.update(salt);
    hash.update("\n");
    char line[64];
    for (const TreeFile& f : content.files) {
        char hex[GIT_OID_HEXSZ + 1];
        git_oid_tostr(hex, sizeof hex, &f.id);
        std::snprintf(line, sizeof line, "%o %s ", static_cast<unsigned>(f.mode), hex);
        hash.update(line);
        hash.update(f.path);
        hash.update("\n");
    }
    return to_hex(hash.finish());
}

} // namespace ksweep::git
