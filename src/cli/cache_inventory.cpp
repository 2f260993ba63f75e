#include "cli/cache_inventory.h"

#include "core/file_io.h"
#include "core/file_lock.h"
#include "git/git_handle.h"
#include "git/pack_writer.h"
#include "kbuild/build_source.h"
#include "kbuild/kernel_tree.h"
#include "kbuild/prepared_build.h"

#include <algorithm>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace ksweep::cli {

namespace {

// The kinds of entries, each in its own directory of the cache; `marker` is the file the code
// that makes them writes last (core/cache_entry.h), "" for kinds that are single files or that
// have none.
struct Kind {
    const char* dir;
    const char* name;
    const char* marker;
    bool one_item = false; // thousands of small files: listed and pruned as one
    const char* each = ""; // one_item: what each file serves
};

constexpr Kind kKinds[] = {
    {"builds", "prepared build", ".ksweep-prepared"},         // kbuild/prepared_build.cpp
    {"guest-kernels", "guest kernel", ".ksweep-guest-built"}, // guest/guest_build.cpp
    {"parse-views", "parse view", ".ksweep-view"},            // kbuild/prepared_build.cpp
    {"preambles", "preamble", ".ksweep-preamble"},            // rewrite/preamble_cache.cpp
    {"parses", "parse results", "", true, "a file's scan"},   // rewrite/parse_cache.cpp
    {"sleep-evals", "sleep evaluations", "", true, "a tree's sleep model"}, // sleep_eval_memo.cpp
    {"validate-builds", "module build (L3)", ".ksweep-built"}, // kbuild/module_build.cpp
    {"modules", "module build (guest)", ".ksweep-built"},      // kbuild/module_build.cpp
    {"scratch", "scratch repository", ""},                     // git/repository.cpp
    {"initramfs", "initramfs", ""},                            // guest/guest_initramfs.cpp
    {"content", "content memo", ""},                           // git/tree_content.cpp
    {"demo", "demo tree", ""},                                 // cli/demo_command.cpp
};

std::uintmax_t disk_bytes(const fs::path& path) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0)
        return 0;
    std::uintmax_t bytes = static_cast<std::uintmax_t>(st.st_blocks) * 512;
    if (!S_ISDIR(st.st_mode))
        return bytes;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(path, ec), end; it != end; it.increment(ec))
        if (lstat(it->path().c_str(), &st) == 0)
            bytes += static_cast<std::uintmax_t>(st.st_blocks) * 512;
    return bytes;
}

fs::file_time_type modified(const fs::path& path) {
    std::error_code ec;
    auto t = fs::last_write_time(path, ec);
    return ec ? fs::file_time_type::min() : t;
}

std::string first_line(const fs::path& file) {
    std::string text = read_file(file).value_or("");
    return text.substr(0, text.find('\n'));
}

void describe_build(CacheItem& item) {
    if (auto v = kbuild::build_dir_version(item.path.string()))
        item.version = kbuild::to_string(*v);
    item.hz = kbuild::read_config_hz(item.path.string());
    item.tree = kbuild::source_tree_of(item.path);
}

// Branches and bases of a scratch repository, and the kernel version its base holds.
void describe_scratch(CacheItem& item) {
    item.tree = first_line(item.path / "description");
    if (item.tree.starts_with("Unnamed repository"))
        item.tree.clear();
    git::LibGit2 libgit2;
    git_repository* raw = nullptr;
    if (git_repository_open_bare(&raw, item.path.c_str()) != 0)
        return;
    git::Repository repo(raw);
    struct Counts {
        size_t branches = 0;
        std::vector<std::string> bases;
    } counts;
    git_reference_foreach_name(
        repo.get(),
        [](const char* name, void* payload) {
            auto* c = static_cast<Counts*>(payload);
            const std::string_view n(name);
            c->branches += n.starts_with("refs/heads/");
            if (n.starts_with("refs/ksweep/base/"))
                c->bases.emplace_back(n);
            return 0;
        },
        &counts);
    item.note = std::to_string(counts.branches) + " branch" + (counts.branches == 1 ? "" : "es") +
                ", " + std::to_string(counts.bases.size()) + " base" +
                (counts.bases.size() == 1 ? "" : "s");
    git_oid base;
    if (counts.bases.empty() ||
        git_reference_name_to_id(&base, repo.get(), counts.bases.front().c_str()) != 0)
        return;
    try {
        git::Commit commit = git::lookup_commit(repo.get(), base);
        git::Tree tree = git::commit_tree(commit.get());
        std::string makefile;
        if (git::read_blob_at(repo.get(), tree.get(), "Makefile", &makefile))
            if (auto v = kbuild::kernel_version_in(makefile))
                item.version = kbuild::to_string(*v);
    } catch (const git::GitError&) {
        item.note += ", base unreadable";
    }
}

CacheItem item_for(const Kind& kind, const fs::path& path) {
    CacheItem item;
    item.kind = kind.name;
    item.path = path;
    item.bytes = disk_bytes(path);
    const std::string k = kind.dir;
    if (k == "preambles" && path.extension() == ".failed") { // rewrite/preamble_cache.cpp
        item.note = "a header prefix that failed on a missing header, kept while it is missing";
        item.last_used = modified(path);
        return item;
    }
    if (*kind.marker) {
        const fs::path marker = path / kind.marker;
        std::error_code ec;
        if (!fs::exists(marker, ec)) {
            item.note = "incomplete: a run was interrupted or failed, or is making it now";
            item.last_used = modified(path);
            return item;
        }
        item.last_used = modified(marker);
        if (k == "builds" || k == "guest-kernels") {
            item.config = first_line(marker);
            describe_build(item);
        } else if (k == "parse-views") {
            item.note = "for build dir " + first_line(marker);
        } else if (k == "preambles") {
            item.tree = first_line(marker);
        }
        return item;
    }
    item.last_used = modified(path);
    if (k == "scratch") {
        item.last_used = std::max(item.last_used, modified(path / "description"));
        describe_scratch(item);
    } else if (k == "content") {
        item.tree = first_line(path).substr(std::min<size_t>(2, first_line(path).size()));
    }
    return item;
}

} // namespace

std::vector<CacheItem> list_cache(const std::string& cache_dir) {
    std::vector<CacheItem> items;
    std::error_code ec;
    const fs::path root(cache_dir);
    for (const Kind& kind : kKinds) {
        if (kind.one_item) {
            if (!fs::is_directory(root / kind.dir, ec))
                continue;
            CacheItem all = item_for(kind, root / kind.dir);
            size_t files = 0;
            for (fs::recursive_directory_iterator it(root / kind.dir, ec), end; it != end;
                 it.increment(ec))
                if (it->is_regular_file(ec)) {
                    ++files;
                    all.last_used = std::max(all.last_used, modified(it->path()));
                }
            all.note = std::to_string(files) +
                       (files == 1 ? " file, used by " : " files, each used by ") + kind.each;
            items.push_back(std::move(all));
            continue;
        }
        for (const auto& e : fs::directory_iterator(root / kind.dir, ec)) {
            const std::string name = e.path().filename().string();
            if (name.ends_with(".lock") || name.ends_with(".tmp") ||
                name.find(".tmp") != std::string::npos)
                continue;
            items.push_back(item_for(kind, e.path()));
        }
    }
    for (const auto& e : fs::directory_iterator(root, ec)) {
        const std::string name = e.path().filename().string();
        if (!name.starts_with("linux-source-") || !e.is_directory())
            continue;
        CacheItem source;
        source.kind = "kernel source";
        source.path = e.path();
        source.tree = e.path().string();
        if (auto v = kbuild::read_kernel_version(e.path().string()))
            source.version = kbuild::to_string(*v);
        source.note = "unpacked by scripts/setup.sh; never pruned";
        source.bytes = disk_bytes(e.path());
        source.last_used = modified(e.path());
        source.prunable = false;
        items.push_back(std::move(source));
    }
    std::stable_sort(items.begin(), items.end(), [](const CacheItem& a, const CacheItem& b) {
        return a.last_used < b.last_used;
    });
    return items;
}

namespace {

// The files of a kind kept as thousands of small entries (parse results, sleep evaluations)
// that were last used longer ago than `older_than`, each with its companion list (same stem,
// another suffix): an entry is used by reading its .json, whose time is then set, so entries
// a newer ksweep build no longer asks for age out one by one while the kind as a whole is in use.
CacheItem prune_stale_files(const Kind& kind, const fs::path& dir, std::chrono::seconds older_than,
                            bool dry_run) {
    CacheItem stale;
    stale.kind = kind.name;
    stale.path = dir;
    const auto now = fs::file_time_type::clock::now();
    std::vector<fs::path> old;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; it != end; it.increment(ec))
        if (it->path().extension() == ".json" && it->is_regular_file(ec) &&
            now - modified(it->path()) > older_than)
            old.push_back(it->path());
    size_t files = 0;
    for (const fs::path& json : old)
        for (const char* suffix : {".json", ".inputs"}) {
            fs::path file = json;
            file.replace_extension(suffix);
            const std::uintmax_t bytes = disk_bytes(file);
            if (!fs::exists(file, ec) || (!dry_run && !fs::remove(file, ec)))
                continue;
            stale.bytes += bytes;
            ++files;
        }
    stale.note = std::to_string(files) + " files last used before the age given";
    return stale;
}

} // namespace

PruneResult prune_cache(const std::string& cache_dir, const PruneRequest& request) {
    PruneResult result;
    if (request.older_than)
        for (const Kind& kind : kKinds)
            if (kind.one_item && fs::is_directory(fs::path(cache_dir) / kind.dir)) {
                CacheItem stale = prune_stale_files(kind, fs::path(cache_dir) / kind.dir,
                                                    *request.older_than, request.dry_run);
                if (stale.bytes == 0)
                    continue;
                result.bytes_freed += stale.bytes;
                result.removed.push_back(std::move(stale));
            }
    std::vector<CacheItem> items = list_cache(cache_dir);
    std::uintmax_t total = 0;
    for (const CacheItem& item : items)
        total += item.prunable ? item.bytes : 0;
    const auto now = fs::file_time_type::clock::now();
    std::vector<const CacheItem*> kept_scratch;
    for (const CacheItem& item : items) { // oldest use first
        if (!item.prunable)
            continue;
        const bool too_old = request.older_than && now - item.last_used > *request.older_than;
        const bool too_big = request.to_bytes && total > *request.to_bytes;
        if (!too_old && !too_big) {
            if (item.kind == "scratch repository")
                kept_scratch.push_back(&item);
            continue;
        }
        if (!request.dry_run) {
            // The lock its maker holds while making or changing it (core/cache_entry.h).
            const fs::path lock_path = item.path.string() + ".lock";
            FileLock lock(lock_path.string(), /*wait=*/false);
            if (!lock.held()) {
                result.skipped.push_back(item.path.string() + ": in use by another ksweep run");
                continue;
            }
            std::error_code ec;
            fs::remove_all(item.path, ec);
            if (ec) {
                result.skipped.push_back(item.path.string() + ": " + ec.message());
                continue;
            }
            fs::remove(lock_path, ec);
        }
        total -= item.bytes;
        result.bytes_freed += item.bytes;
        result.removed.push_back(item);
    }
    if (request.dry_run)
        return result;
    // Objects of the branches series pruned go with a repack of what the refs still reach.
    for (const CacheItem* repo : kept_scratch) {
        FileLock lock(repo->path.string() + ".lock", /*wait=*/false);
        if (!lock.held())
            continue;
        try {
            git::LibGit2 libgit2;
            git_repository* raw = nullptr;
            git::check(git_repository_open_bare(&raw, repo->path.c_str()),
                       "git_repository_open_bare");
            git::Repository opened(raw);
            git::repack(opened.get());
        } catch (const std::exception& e) {
            result.skipped.push_back(repo->path.string() + ": repack failed: " + e.what());
            continue;
        }
        const std::uintmax_t after = disk_bytes(repo->path);
        if (after < repo->bytes)
            result.scratch_bytes_freed += repo->bytes - after;
    }
    return result;
}

} // namespace ksweep::cli
