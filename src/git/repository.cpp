#include "git/repository.h"

#include "core/file_io.h"

#include <filesystem>
#include <sys/stat.h>
#include <vector>

namespace fs = std::filesystem;

namespace ksweep::git {

namespace {

// FNV-1a: a stable 64-bit digest for cache keys (not for security).
struct Fnv {
    unsigned long long h = 1469598103934665603ULL;
    void add(const void* data, size_t n) {
        auto* p = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < n; ++i)
            h = (h ^ p[i]) * 1099511628211ULL;
    }
    void add(const std::string& s) { add(s.data(), s.size() + 1); }
    template <typename T> void add_value(T v) { add(&v, sizeof v); }
    std::string hex() const {
        char out[17];
        std::snprintf(out, sizeof out, "%016llx", h);
        return out;
    }
};

// One regular file or symlink of the tree, in git's tree order within its directory.
struct DirEntry {
    std::string name;
    bool is_dir = false;
    git_filemode_t mode = GIT_FILEMODE_BLOB;
    struct stat st {};
};

// Lists a directory the way git stores it: regular files (executable or not), symlinks and
// subdirectories; sockets, fifos and devices have no git form and are left out.
std::vector<DirEntry> list_dir(const std::string& dir) {
    std::vector<DirEntry> out;
    for (const auto& de : fs::directory_iterator(dir)) {
        DirEntry e;
        e.name = de.path().filename().string();
        if (e.name == ".git")
            continue;
        if (lstat(de.path().c_str(), &e.st) != 0)
            continue;
        if (S_ISDIR(e.st.st_mode)) {
            e.is_dir = true;
            e.mode = GIT_FILEMODE_TREE;
        } else if (S_ISLNK(e.st.st_mode)) {
            e.mode = GIT_FILEMODE_LINK;
        } else if (S_ISREG(e.st.st_mode)) {
            e.mode = (e.st.st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
        } else {
            continue;
        }
        out.push_back(std::move(e));
    }
    std::sort(out.begin(), out.end(),
              [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    return out;
}

void fingerprint_dir(const std::string& dir, const std::string& rel, Fnv* fp) {
    for (const auto& e : list_dir(dir)) {
        std::string path = rel + e.name;
        fp->add(path);
        fp->add_value(static_cast<int>(e.mode));
        if (e.is_dir) {
            fingerprint_dir(dir + "/" + e.name, path + "/", fp);
            continue;
        }
        fp->add_value(static_cast<long long>(e.st.st_size));
        fp->add_value(static_cast<long long>(e.st.st_mtim.tv_sec));
        fp->add_value(static_cast<long long>(e.st.st_mtim.tv_nsec));
    }
}

struct SnapshotContext {
    git_repository* repo;
    ScratchStats* stats;
    const std::function<void(size_t)>* progress;
};

// Writes the directory's blobs and subtrees bottom-up; false when it holds nothing git can
// store (git has no empty directories).
bool write_tree(SnapshotContext& ctx, const std::string& dir, git_oid* out) {
    git_treebuilder* raw = nullptr;
    check(git_treebuilder_new(&raw, ctx.repo, nullptr), "git_treebuilder_new");
    TreeBuilder builder(raw);
    for (const auto& e : list_dir(dir)) {
        std::string path = dir + "/" + e.name;
        git_oid id;
        if (e.is_dir) {
            if (!write_tree(ctx, path, &id))
                continue;
        } else if (e.mode == GIT_FILEMODE_LINK) {
            std::error_code ec;
            std::string target = fs::read_symlink(path, ec).string();
            check(git_blob_create_from_buffer(&id, ctx.repo, target.data(), target.size()),
                  "git_blob_create_from_buffer");
        } else {
            std::string content = read_file(path).value_or("");
            check(git_blob_create_from_buffer(&id, ctx.repo, content.data(), content.size()),
                  "git_blob_create_from_buffer");
            ctx.stats->bytes += content.size();
            if (++ctx.stats->files % 1000 == 0 && *ctx.progress)
                (*ctx.progress)(ctx.stats->files);
        }
        check(git_treebuilder_insert(nullptr, builder.get(), e.name.c_str(), &id, e.mode),
              "git_treebuilder_insert");
    }
    if (git_treebuilder_entrycount(builder.get()) == 0)
        return false;
    check(git_treebuilder_write(out, builder.get()), "git_treebuilder_write");
    return true;
}

// A fixed identity and time make the base commit of an unchanged tree the same object on
// every machine, so a base-commit line means the same thing twice.
git_oid write_base_commit(git_repository* repo, const git_oid& tree_id, const std::string& tree) {
    git_signature* raw = nullptr;
    check(git_signature_new(&raw, "ksweep", "ksweep@localhost", 0, 0), "git_signature_new");
    Signature sig(raw);
    git_tree* t = nullptr;
    check(git_tree_lookup(&t, repo, &tree_id), "git_tree_lookup");
    Tree tree_obj(t);
    std::string message = "Snapshot of " + fs::path(tree).filename().string() +
                          "\n\nThe tree as found on disk, committed by ksweep as a base for "
                          "patch series.\n";
    git_oid id;
    check(git_commit_create(&id, repo, nullptr, sig.get(), sig.get(), nullptr, message.c_str(),
                            tree_obj.get(), 0, nullptr),
          "git_commit_create");
    return id;
}

SeriesRepo open_scratch(const std::string& tree, const std::string& cache_dir, ScratchStats* stats,
                        const std::function<void(size_t)>& progress) {
    Fnv key;
    key.add(tree);
    SeriesRepo out;
    out.git_dir = cache_dir + "/scratch/" + fs::path(tree).filename().string() + "-" + key.hex();
    fs::create_directories(out.git_dir);

    git_repository* raw = nullptr;
    if (git_repository_open_bare(&raw, out.git_dir.c_str()) != 0)
        check(git_repository_init(&raw, out.git_dir.c_str(), /*is_bare=*/1), "git_repository_init");
    out.repo.reset(raw);

    Fnv fp;
    fingerprint_dir(tree, "", &fp);
    std::string ref_name = "refs/ksweep/base/" + fp.hex();
    if (git_reference_name_to_id(&out.base, out.repo.get(), ref_name.c_str()) == 0) {
        stats->reused = true;
        return out;
    }
    SnapshotContext ctx{out.repo.get(), stats, &progress};
    git_oid tree_id;
    if (!write_tree(ctx, tree, &tree_id))
        throw GitError(tree + ": no files to snapshot");
    out.base = write_base_commit(out.repo.get(), tree_id, tree);
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
