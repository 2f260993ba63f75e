// ksweep cache: what ksweep keeps in ~/.cache/ksweep (prepared build dirs, guest kernels, parse
// views, preambles, module builds, scratch repositories, memos), and pruning it by age or to a
// size.
#include "cli/args.h"
#include "cli/cache_inventory.h"
#include "cli/commands.h"
#include "core/cache_dir.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <optional>

namespace fs = std::filesystem;

namespace ksweep::cli {

namespace {

std::string human_bytes(std::uintmax_t bytes) {
    const char* units[] = {"B", "K", "M", "G", "T"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024 && u < 4)
        v /= 1024, ++u;
    char out[32];
    std::snprintf(out, sizeof out, u == 0 || v >= 10 ? "%.0f%s" : "%.1f%s", v, units[u]);
    return out;
}

std::string when(fs::file_time_type t) {
    if (t == fs::file_time_type::min())
        return "unknown";
    const auto system = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
        t - fs::file_time_type::clock::now() + std::chrono::system_clock::now());
    const std::time_t seconds = std::chrono::system_clock::to_time_t(system);
    char out[32];
    std::strftime(out, sizeof out, "%Y-%m-%d %H:%M", std::localtime(&seconds));
    return out;
}

// "30d", "12h", "45m", "90s", "2w".
std::optional<std::chrono::seconds> parse_age(const std::string& text) {
    char* end = nullptr;
    const double n = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || n < 0 || std::string(end).size() != 1)
        return std::nullopt;
    const double unit = *end == 's'   ? 1
                        : *end == 'm' ? 60
                        : *end == 'h' ? 3600
                        : *end == 'd' ? 86400
                        : *end == 'w' ? 604800
                                      : 0;
    if (unit == 0)
        return std::nullopt;
    return std::chrono::seconds(static_cast<long long>(std::llround(n * unit)));
}

// "10G", "500M", "1.5G", "123456" (bytes).
std::optional<std::uintmax_t> parse_size(const std::string& text) {
    char* end = nullptr;
    const double n = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || n < 0)
        return std::nullopt;
    const std::string unit = end;
    double scale = 1;
    if (unit == "K")
        scale = 1024.0;
    else if (unit == "M")
        scale = 1024.0 * 1024;
    else if (unit == "G")
        scale = 1024.0 * 1024 * 1024;
    else if (unit == "T")
        scale = 1024.0 * 1024 * 1024 * 1024;
    else if (!unit.empty())
        return std::nullopt;
    return static_cast<std::uintmax_t>(std::llround(n * scale));
}

std::string relative(const fs::path& path, const std::string& cache) {
    return path.lexically_relative(cache).string();
}

// Two lines an entry: what it is, then what it is for.
void print_item(const CacheItem& item, const std::string& cache) {
    std::printf("%-22s %-16s %6s  %s\n", item.kind.c_str(), when(item.last_used).c_str(),
                human_bytes(item.bytes).c_str(), relative(item.path, cache).c_str());
    std::string what;
    auto add = [&](const std::string& part) {
        if (!part.empty())
            what += (what.empty() ? "" : ", ") + part;
    };
    add(item.version.empty() ? "" : "Linux " + item.version);
    add(item.config.empty() ? "" : "config " + item.config);
    add(item.hz ? "HZ=" + std::to_string(*item.hz) : "");
    add(item.tree.empty() ? "" : "tree " + item.tree);
    add(item.note);
    if (!what.empty())
        std::printf("%-22s %s\n", "", what.c_str());
}

} // namespace

int cache_command(int argc, char** argv) {
    std::string cache = cache_dir(), older_than, to_size;
    bool dry_run = false;
    std::vector<std::string> positionals;
    ArgParser args("cache", "[options] [list|prune]",
                   "Lists what ksweep keeps in its cache, oldest use first: prepared build dirs,\n"
                   "guest kernels, parse views, preambles, module builds, scratch repositories,\n"
                   "memos; for each what it is for (tree, kernel version, config, HZ), its size\n"
                   "and when it was last used, then the total. `prune` removes the entries last\n"
                   "used longer ago than --older-than, then the oldest until the rest fits\n"
                   "--to-size, and repacks the scratch repositories it keeps. The kernel sources\n"
                   "scripts/setup.sh unpacked are never pruned; an entry another run is making\n"
                   "or changing is skipped.");
    args.option("--cache", &cache, "DIR", "the cache (default $KSWEEP_CACHE or ~/.cache/ksweep)");
    args.option("--older-than", &older_than, "AGE",
                "prune: entries last used before AGE ago (30d, 12h, 45m)");
    args.option("--to-size", &to_size, "SIZE",
                "prune: then the oldest until what ksweep made fits SIZE (10G, 500M)");
    args.flag("--dry-run", &dry_run, "prune: say what would go, remove nothing");
    args.positionals(&positionals, 0);
    if (auto rc = args.parse(argc, argv))
        return *rc;
    const std::string action = positionals.empty() ? "list" : positionals.front();
    if (positionals.size() > 1 || (action != "list" && action != "prune")) {
        std::fprintf(stderr, "ksweep cache: expected `list` or `prune`, got '%s'\n",
                     positionals.back().c_str());
        return 2;
    }
    if (action == "list" && (!older_than.empty() || !to_size.empty() || dry_run)) {
        std::fprintf(stderr, "ksweep cache: --older-than, --to-size and --dry-run are for prune\n");
        return 2;
    }
    if (!fs::is_directory(cache)) {
        std::fprintf(stderr, "ksweep cache: no cache at %s\n", cache.c_str());
        return 2;
    }

    if (action == "list") {
        std::uintmax_t total = 0, kept = 0;
        const std::vector<CacheItem> items = list_cache(cache);
        for (const CacheItem& item : items) {
            print_item(item, cache);
            total += item.bytes;
            kept += item.prunable ? 0 : item.bytes;
        }
        std::printf("\ntotal %s in %zu entries of %s (%s of it kernel sources, never pruned)\n",
                    human_bytes(total).c_str(), items.size(), cache.c_str(),
                    human_bytes(kept).c_str());
        return 0;
    }

    PruneRequest request;
    request.dry_run = dry_run;
    if (!older_than.empty() && !(request.older_than = parse_age(older_than))) {
        std::fprintf(stderr, "ksweep cache: --older-than %s: give an age like 30d, 12h or 45m\n",
                     older_than.c_str());
        return 2;
    }
    if (!to_size.empty() && !(request.to_bytes = parse_size(to_size))) {
        std::fprintf(stderr, "ksweep cache: --to-size %s: give a size like 10G or 500M\n",
                     to_size.c_str());
        return 2;
    }
    if (!request.older_than && !request.to_bytes) {
        std::fprintf(stderr, "ksweep cache prune: give --older-than AGE, --to-size SIZE or both\n");
        return 2;
    }
    const PruneResult result = prune_cache(cache, request);
    for (const CacheItem& item : result.removed)
        std::printf("%s %s (%s, %s, last used %s)\n", dry_run ? "would remove" : "removed",
                    relative(item.path, cache).c_str(), item.kind.c_str(),
                    human_bytes(item.bytes).c_str(), when(item.last_used).c_str());
    for (const std::string& why : result.skipped)
        std::fprintf(stderr, "ksweep cache: kept %s\n", why.c_str());
    std::printf("%s %s in %zu entries", dry_run ? "would free" : "freed",
                human_bytes(result.bytes_freed).c_str(), result.removed.size());
    if (result.scratch_bytes_freed)
        std::printf(", and %s by repacking the scratch repositories kept",
                    human_bytes(result.scratch_bytes_freed).c_str());
    std::printf("\n");
    return 0;
}

} // namespace ksweep::cli
