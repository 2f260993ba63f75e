// `ksweep cache` (cli/cache_inventory.h): every entry with what it is for — tree, version,
// config, HZ — its size and last use, oldest first; an interrupted entry says so; pruning by age
// or to a size removes the oldest, never the kernel sources, never an entry another run holds.
#include "cli/cache_inventory.h"
#include "core/file_io.h"
#include "core/file_lock.h"
#include "git/repository.h"
#include "test_files.h"

#include <algorithm>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace ksweep;
using namespace ksweep::cli;
using ksweep::test::write_file;

namespace {

struct Cache {
    TempDir dir{"ksweep-cache-test"};
    fs::path root = dir.path() / "cache";
    fs::path tree = dir.path() / "linux";

    Cache() {
        const std::string makefile = "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 7\n";
        write_file(tree / "Makefile", makefile);
        write_file(tree / "drivers/foo.c", "int x;\n");
        const fs::path build = root / "builds/linux-6.12.7-0123456789abcdef";
        write_file(build / ".config", "CONFIG_HZ_300=y\nCONFIG_HZ=300\n");
        write_file(build / "include/generated/autoconf.h", "\n");
        fs::create_directory_symlink(tree, build / "source");
        write_file(build / ".ksweep-prepared", "allmodconfig (ksweep's default)\n");
        const fs::path guest = root / "guest-kernels/linux-6.12.7-hz250-0123456789abcdef";
        write_file(guest / ".config", "CONFIG_HZ=250\n");
        write_file(guest / "include/config/kernel.release", "6.12.7\n");
        write_file(guest / ".ksweep-guest-built", "qemu/guest.config\n");
        write_file(root / "builds/linux-6.12.7-fedcba9876543210/.config", "half made\n");
        write_file(root / "preambles/0123/preamble.pch", std::string(5000, 'p'));
        write_file(root / "preambles/0123/.ksweep-preamble", "/x/drivers/foo.c\n");
        write_file(root / "preambles/0456.failed/failure.json", "{}");
        write_file(root / "preambles/0456.failed/headers", "");
        write_file(root / "parses/01/0123.json", "{}");
        write_file(root / "parses/02/0234.json", "{}");
        write_file(root / "sleep-evals/0345.json", "{}");
        write_file(root / "linux-source-6.12/Makefile", makefile);
        git::LibGit2 libgit2;
        git::open_series_repo(tree.string(), root.string());
    }

    const CacheItem* find(const std::vector<CacheItem>& items, const std::string& kind) const {
        auto it = std::find_if(items.begin(), items.end(),
                               [&](const CacheItem& i) { return i.kind == kind; });
        return it == items.end() ? nullptr : &*it;
    }

    void last_used(const fs::path& file, std::chrono::hours ago) const {
        fs::last_write_time(file, fs::file_time_type::clock::now() - ago);
    }
};

} // namespace

TEST(CacheInventory, ListsEachEntryWithWhatItIsFor) {
    Cache c;
    const std::vector<CacheItem> items = list_cache(c.root.string());
    const CacheItem* build = c.find(items, "prepared build");
    ASSERT_TRUE(build);
    EXPECT_EQ(build->version, "6.12.7");
    EXPECT_EQ(build->config, "allmodconfig (ksweep's default)");
    EXPECT_EQ(build->hz, 300);
    EXPECT_EQ(build->tree, fs::canonical(c.tree).string());
    EXPECT_GT(build->bytes, 0u);
    const CacheItem* guest = c.find(items, "guest kernel");
    ASSERT_TRUE(guest);
    EXPECT_EQ(guest->version, "6.12.7");
    EXPECT_EQ(guest->hz, 250);
    const auto incomplete = std::count_if(items.begin(), items.end(), [](const CacheItem& i) {
        return i.note.find("incomplete") != std::string::npos;
    });
    EXPECT_EQ(incomplete, 1);
    const CacheItem* scratch = c.find(items, "scratch repository");
    ASSERT_TRUE(scratch);
    EXPECT_EQ(scratch->version, "6.12.7");
    EXPECT_EQ(scratch->tree, fs::canonical(c.tree).string());
    EXPECT_NE(scratch->note.find("0 branches, 1 base"), std::string::npos) << scratch->note;
    const CacheItem* parses = c.find(items, "parse results");
    ASSERT_TRUE(parses);
    EXPECT_NE(parses->note.find("2 files"), std::string::npos) << parses->note;
    const CacheItem* sleeps = c.find(items, "sleep evaluations");
    ASSERT_TRUE(sleeps);
    EXPECT_NE(sleeps->note.find("1 file, used by a tree's sleep model"), std::string::npos)
        << sleeps->note;
    ASSERT_TRUE(c.find(items, "preamble"));
    // A kept failure of a header prefix is one entry, not an incomplete preamble.
    EXPECT_EQ(std::count_if(items.begin(), items.end(),
                            [](const CacheItem& i) {
                                return i.note.find("failed on a missing header") !=
                                       std::string::npos;
                            }),
              1);
    const CacheItem* sources = c.find(items, "kernel source");
    ASSERT_TRUE(sources);
    EXPECT_FALSE(sources->prunable);
    EXPECT_TRUE(std::is_sorted(items.begin(), items.end(), [](const auto& a, const auto& b) {
        return a.last_used < b.last_used;
    }));
}

// Parse results a newer build no longer asks for age out file by file while others are used.
TEST(CacheInventory, PruneByAgeRemovesStaleParseResultsOneByOne) {
    Cache c;
    write_file(c.root / "parses/01/0123.inputs", "list");
    c.last_used(c.root / "parses/01/0123.json", std::chrono::hours(24 * 40));
    PruneRequest by_age;
    by_age.older_than = std::chrono::hours(24 * 30);
    const PruneResult aged = prune_cache(c.root.string(), by_age);
    EXPECT_FALSE(fs::exists(c.root / "parses/01/0123.json"));
    EXPECT_FALSE(fs::exists(c.root / "parses/01/0123.inputs"));
    EXPECT_TRUE(fs::exists(c.root / "parses/02/0234.json")) << "used within the age: kept";
    const auto parses = std::find_if(aged.removed.begin(), aged.removed.end(),
                                     [](const CacheItem& i) { return i.kind == "parse results"; });
    ASSERT_NE(parses, aged.removed.end());
    EXPECT_EQ(parses->note, "2 files last used before the age given");
}

TEST(CacheInventory, PrunesByAgeThenToASizeOldestFirstNeverTheSources) {
    Cache c;
    const fs::path build = c.root / "builds/linux-6.12.7-0123456789abcdef";
    c.last_used(build / ".ksweep-prepared", std::chrono::hours(24 * 40));
    c.last_used(c.root / "preambles/0123/.ksweep-preamble", std::chrono::hours(24 * 10));

    PruneRequest by_age;
    by_age.older_than = std::chrono::hours(24 * 30);
    by_age.dry_run = true;
    PruneResult dry = prune_cache(c.root.string(), by_age);
    ASSERT_EQ(dry.removed.size(), 1u);
    EXPECT_TRUE(fs::exists(build)) << "a dry run removes nothing";

    by_age.dry_run = false;
    PruneResult aged = prune_cache(c.root.string(), by_age);
    ASSERT_EQ(aged.removed.size(), 1u);
    EXPECT_EQ(aged.removed[0].path, build);
    EXPECT_FALSE(fs::exists(build));
    EXPECT_TRUE(fs::exists(c.root / "preambles/0123"));

    // Another run holds the guest kernel: kept, and said so.
    FileLock held((c.root / "guest-kernels/linux-6.12.7-hz250-0123456789abcdef.lock").string());
    PruneRequest to_nothing;
    to_nothing.to_bytes = 0;
    PruneResult emptied = prune_cache(c.root.string(), to_nothing);
    EXPECT_EQ(emptied.removed.front().path, c.root / "preambles/0123"); // the oldest use first
    ASSERT_EQ(emptied.skipped.size(), 1u);
    EXPECT_NE(emptied.skipped[0].find("in use"), std::string::npos) << emptied.skipped[0];
    for (const CacheItem& item : list_cache(c.root.string()))
        EXPECT_TRUE(item.kind == "kernel source" || item.kind == "guest kernel") << item.kind;
    EXPECT_TRUE(fs::exists(c.root / "linux-source-6.12/Makefile"));
}
