#include "git/repository.h"

#include "core/file_io.h"
#include "core/file_lock.h"
#include "core/parallel.h"
#include "git/pack_writer.h"
#include "git/tree_content.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <vector>

namespace fs = std::filesystem;

namespace ksweep::git {

namespace {

// The files of one directory of the snapshot and its subdirectories, as git will store them.
struct SnapshotDir {
    std::map<std::string, SnapshotDir> dirs;
    std::map<std::string, const TreeFile*> files;
};

// A tree object's bytes, entries in git's order (a directory sorts as its name and '/').
std::string tree_bytes(const std::vector<std::tuple<std::string, git_filemode_t, git_oid>>& in) {
    auto entries = in;
    auto key = [](const auto& e) {
        return std::get<0>(e) + (std::get<1>(e) == GIT_FILEMODE_TREE ? "/" : "");
    };
    std::sort(entries.begin(), entries.end(),
              [&](const auto& a, const auto& b) { return key(a) < key(b); });
    std::string bytes;
    for (const auto& [name, mode, id] : entries) {
        char octal[8];
        std::snprintf(octal, sizeof octal, "%o", static_cast<unsigned>(mode));
        bytes += std::string(octal) + " " + name + '\0';
        bytes.append(reinterpret_cast<const char*>(id.id), GIT_OID_RAWSZ);
    }
    return bytes;
}

struct SnapshotObject {
    git_object_t type;
    std::string bytes;
};

// The directory's tree id; its tree objects (children first) added to `trees`, each once: two
// directories with the same files are one tree object.
git_oid hash_dir(const SnapshotDir& dir, std::map<std::string, SnapshotObject>& trees,
                 std::vector<git_oid>& order) {
    std::vector<std::tuple<std::string, git_filemode_t, git_oid>> entries;
    for (const auto& [name, sub] : dir.dirs)
        entries.emplace_back(name, GIT_FILEMODE_TREE, hash_dir(sub, trees, order));
    for (const auto& [name, file] : dir.files)
        entries.emplace_back(name, file->mode, file->id);
    SnapshotObject tree{GIT_OBJECT_TREE, tree_bytes(entries)};
    git_oid id;
    check(git_odb_hash(&id, tree.bytes.data(), tree.bytes.size(), GIT_OBJECT_TREE), "git_odb_hash");
    if (trees.emplace(oid_hex(id), std::move(tree)).second)
        order.push_back(id);
    return id;
}

// A fixed identity and time make the base commit of the same content the same object on every
// machine, so a base-commit line means the same thing twice.
std::string base_commit_bytes(const git_oid& tree) {
    const std::string who = "ksweep <ksweep@localhost> 0 +0000";
    return "tree " + oid_hex(tree) + "\nauthor " + who + "\ncommitter " + who +
           "\n\nSnapshot of the tree as found on disk\n\nCommitted by ksweep as a base for patch "
           "series.\n";
}

// Writes the snapshot of `content` as one pack: every tree, the commit and the top-level files'
// blobs the repository lacks (read again and checked against the ids the content key was made
// of). Returns the commit.
git_oid write_snapshot(git_repository* repo, const std::string& tree, const TreeContent& content,
                       ScratchStats* stats, const std::function<void(size_t)>& progress) {
    SnapshotDir root;
    for (const TreeFile& f : content.files) {
        SnapshotDir* dir = &root;
        std::string_view rest = f.path;
        for (size_t slash; (slash = rest.find('/')) != std::string_view::npos;
             rest.remove_prefix(slash + 1))
            dir = &dir->dirs[std::string(rest.substr(0, slash))];
        dir->files[std::string(rest)] = &f;
    }
    if (root.files.empty() && root.dirs.empty())
        throw GitError(tree + ": no files to snapshot");
    std::map<std::string, SnapshotObject> trees;
    std::vector<git_oid> tree_order;
    const git_oid tree_id = hash_dir(root, trees, tree_order);
    SnapshotObject commit{GIT_OBJECT_COMMIT, base_commit_bytes(tree_id)};
    git_oid commit_id;
    check(git_odb_hash(&commit_id, commit.bytes.data(), commit.bytes.size(), GIT_OBJECT_COMMIT),
          "git_odb_hash");

    Odb odb = repository_odb(repo);
    // Of the files, only the top-level ones (Makefile, MAINTAINERS: what reading the base for
    // its version needs); the rest are written when needed (base_blobs.h).
    std::vector<const TreeFile*> blobs;
    for (const TreeFile& f : content.files)
        if (f.path.find('/') == std::string::npos && !git_odb_exists(odb.get(), &f.id))
            blobs.push_back(&f);
    std::sort(blobs.begin(), blobs.end(), [](const TreeFile* a, const TreeFile* b) {
        return std::memcmp(a->id.id, b->id.id, GIT_OID_RAWSZ) < 0;
    });
    blobs.erase(std::unique(blobs.begin(), blobs.end(),
                            [](const TreeFile* a, const TreeFile* b) {
                                return git_oid_equal(&a->id, &b->id);
                            }),
                blobs.end());

    std::vector<const SnapshotObject*> new_trees;
    for (const git_oid& id : tree_order)
        if (!git_odb_exists(odb.get(), &id))
            new_trees.push_back(&trees.at(oid_hex(id)));
    const bool new_commit = !git_odb_exists(odb.get(), &commit_id);

    PackWriter pack(repo, blobs.size() + new_trees.size() + (new_commit ? 1 : 0));
    // Read and compressed on two threads, a batch at a time; written in order.
    constexpr size_t kBatch = 256;
    std::vector<PackEntry> batch;
    for (size_t first = 0; first < blobs.size(); first += kBatch) {
        const size_t n = std::min(kBatch, blobs.size() - first);
        batch.assign(n, {});
        std::vector<std::string> errors(n);
        std::vector<size_t> sizes(n, 0);
        parallel_for(n, 2, [&](size_t i) {
            const TreeFile& f = *blobs[first + i];
            const std::string path = tree + "/" + f.path;
            std::error_code ec;
            std::optional<std::string> data =
                f.mode == GIT_FILEMODE_LINK ? fs::read_symlink(path, ec).string() : read_file(path);
            git_oid id;
            if (!data || ec)
                errors[i] = "cannot read " + path;
            else if (git_odb_hash(&id, data->data(), data->size(), GIT_OBJECT_BLOB) != 0 ||
                     !git_oid_equal(&id, &f.id))
                errors[i] = path + " changed while ksweep read the tree: run again";
            else
                batch[i] = pack_entry(GIT_OBJECT_BLOB, *data);
            if (errors[i].empty())
                sizes[i] = data->size();
        });
        for (size_t i = 0; i < n; ++i) {
            if (!errors[i].empty())
                throw GitError(errors[i]);
            pack.add(batch[i]);
            stats->bytes += sizes[i];
        }
        stats->files += n;
        if (progress)
            progress(stats->files);
    }
    for (const SnapshotObject* t : new_trees)
        pack.add(pack_entry(t->type, t->bytes));
    if (new_commit)
        pack.add(pack_entry(commit.type, commit.bytes));
    pack.commit();
    return commit_id;
}

// The scratch repository of `tree`'s content: <cache>/scratch/tree-<content key>, holding the
// content as its base commit (refs/ksweep/base/<key>) and the series made on it. Every copy of
// the same files shares it; a tree changed since has another.
SeriesRepo open_scratch(const std::string& tree, const std::string& cache_dir, ScratchStats* stats,
                        const std::function<void(size_t)>& progress) {
    FileSelection everything;
    everything.all = true;
    const TreeContent content = tree_content(tree, everything, cache_dir);
    const std::string key = content_key(content, "ksweep scratch base v3").substr(0, 40);
    SeriesRepo out;
    out.git_dir = cache_dir + "/scratch/tree-" + key.substr(0, 16);
    fs::create_directories(out.git_dir);
    // One run makes the base; another waits for it, then finds it.
    FileLock lock(out.git_dir + ".lock");
    git_repository* raw = nullptr;
    if (git_repository_open_bare(&raw, out.git_dir.c_str()) != 0)
        check(git_repository_init(&raw, out.git_dir.c_str(), /*is_bare=*/1), "git_repository_init");
    out.repo.reset(raw);
    // What `ksweep cache` lists: the tree last committed to, and when.
    std::ofstream(out.git_dir + "/description") << tree << "\n";

    const std::string ref_name = "refs/ksweep/base/" + key;
    if (git_reference_name_to_id(&out.base, out.repo.get(), ref_name.c_str()) == 0) {
        stats->reused = true;
        return out;
    }
    out.base = write_snapshot(out.repo.get(), tree, content, stats, progress);
    git_reference* raw_ref = nullptr;
    check(git_reference_create(&raw_ref, out.repo.get(), ref_name.c_str(), &out.base, 1,
                               "ksweep: snapshot base"),
          "git_reference_create");
    Reference ref(raw_ref); // freed on return: only the reference's existence counts
    return out;
}

} // namespace

SeriesRepo open_series_repo(const std::string& tree_arg, const std::string& cache_dir,
                            ScratchStats* stats, const std::function<void(size_t)>& progress) {
    ScratchStats ignored;
    if (!stats)
        stats = &ignored;
    std::error_code ec;
    std::string tree = fs::canonical(tree_arg, ec).string();
    if (ec || !fs::is_directory(tree))
        throw GitError(tree_arg + ": not a directory");

    git_repository* raw = nullptr;
    int rc = git_repository_open_ext(&raw, tree.c_str(), 0, nullptr);
    if (rc == GIT_ENOTFOUND) {
        SeriesRepo scratch = open_scratch(tree, cache_dir, stats, progress);
        scratch.owned = ScratchRepository(scratch.repo.get());
        return scratch;
    }
    check(rc, "git_repository_open_ext");
    SeriesRepo out;
    out.repo.reset(raw);
    out.git_dir = git_repository_path(raw);
    const char* workdir = git_repository_workdir(raw);
    if (!workdir)
        throw GitError(tree + ": a bare repository has no tree to fix");
    std::string wd = fs::canonical(workdir).string();
    if (tree.size() > wd.size())
        out.tree_prefix = tree.substr(wd.size() + 1) + "/";
    if (git_repository_head_unborn(raw) == 1)
        throw GitError(tree + ": the repository has no commit yet to base a series on");
    check(git_reference_name_to_id(&out.base, raw, "HEAD"), "resolving HEAD");
    return out;
}

} // namespace ksweep::git
