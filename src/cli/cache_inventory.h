// What ksweep keeps in its cache (~/.cache/ksweep): every entry with what it is for (tree,
// kernel version, config, HZ), its size on disk and when it was last used, and pruning by age or
// to a total size. The kernel sources scripts/setup.sh unpacked are listed, never pruned.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::cli {

struct CacheItem {
    std::string kind;           // "prepared build", "guest kernel", "scratch repository", ...
    std::filesystem::path path; // the entry (a directory or a file)
    std::string tree;           // the tree it was made from or last used by, when known
    std::string version;        // "6.12.118"
    std::string config;         // what its .config came from
    std::optional<int> hz;
    std::string note;         // "incomplete: an interrupted run", "2 branches, 1 base"
    std::uintmax_t bytes = 0; // on disk
    std::filesystem::file_time_type last_used;
    bool prunable = true; // false: setup.sh's kernel sources and env
};

// Every entry under `cache_dir`, oldest use first. Reading an entry never writes it.
std::vector<CacheItem> list_cache(const std::string& cache_dir);

struct PruneRequest {
    std::optional<std::chrono::seconds> older_than; // entries last used longer ago
    std::optional<std::uintmax_t> to_bytes;         // then the oldest until the total fits
    bool dry_run = false;
};

struct PruneResult {
    std::vector<CacheItem> removed;
    std::vector<std::string> skipped; // "path: in use by another ksweep" and the like
    std::uintmax_t bytes_freed = 0;
    std::uintmax_t scratch_bytes_freed = 0; // by repacking the scratch repositories kept
};

// Removes entries as asked (each under its lock, skipped while another run holds it), then
// repacks the scratch repositories that stay, which drops the objects of pruned branches.
PruneResult prune_cache(const std::string& cache_dir, const PruneRequest& request);

} // namespace ksweep::cli
