// A cache entry is trusted only once complete: a make that throws, or a process killed in the
// middle of making it (what Ctrl-C or kill does to a guest kernel build), leaves nothing a later
// caller uses; it makes the entry again.
#include "core/cache_entry.h"
#include "core/file_io.h"

#include <chrono>
#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ksweep {
namespace {

constexpr const char* kMarker = ".done";

TEST(CacheEntry, MadeOnceThenFound) {
    TempDir root{"ksweep-cache-entry"};
    int makes = 0;
    auto make = [&](const fs::path& dir) {
        ++makes;
        std::ofstream(dir / "vmlinux") << "kernel";
    };
    CacheEntry first = make_cache_entry(root.path(), "k", kMarker, "note\n", make);
    EXPECT_TRUE(first.made_now);
    EXPECT_EQ(first.dir, root.path() / "k");
    EXPECT_EQ(read_file(first.dir / kMarker).value_or(""), "note\n");
    CacheEntry second = make_cache_entry(root.path(), "k", kMarker, "note\n", make);
    EXPECT_FALSE(second.made_now);
    EXPECT_EQ(makes, 1);
    EXPECT_TRUE(fs::exists(root.path() / "k.lock")) << "the lock file sits beside the entry";
}

TEST(CacheEntry, AFailedMakeLeavesNoTrustedEntry) {
    TempDir root{"ksweep-cache-entry"};
    auto failing = [](const fs::path& dir) {
        std::ofstream(dir / "half.o") << "x";
        throw std::runtime_error("make exited 2");
    };
    EXPECT_THROW(make_cache_entry(root.path(), "k", kMarker, "", failing), std::runtime_error);
    EXPECT_FALSE(cache_entry_complete(root.path() / "k", kMarker));
    bool saw_half = true;
    CacheEntry again = make_cache_entry(root.path(), "k", kMarker, "", [&](const fs::path& dir) {
        saw_half = fs::exists(dir / "half.o");
    });
    EXPECT_TRUE(again.made_now);
    EXPECT_FALSE(saw_half) << "the failed attempt's files were removed before making again";
}

TEST(CacheEntry, AProcessKilledWhileMakingLeavesNoTrustedEntry) {
    TempDir root{"ksweep-cache-entry"};
    const fs::path started = root.path() / "started";
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) { // a build that is killed halfway
        make_cache_entry(root.path(), "k", kMarker, "", [&](const fs::path& dir) {
            std::ofstream(dir / "half.o") << "x";
            std::ofstream(started) << "";
            std::this_thread::sleep_for(std::chrono::seconds(60));
        });
        _exit(0);
    }
    for (int i = 0; i < 500 && !fs::exists(started); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_TRUE(fs::exists(started));
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_FALSE(cache_entry_complete(root.path() / "k", kMarker));
    // The killed process's lock went with it; the next caller makes the entry afresh.
    bool saw_half = true;
    CacheEntry again = make_cache_entry(root.path(), "k", kMarker, "", [&](const fs::path& dir) {
        saw_half = fs::exists(dir / "half.o");
    });
    EXPECT_TRUE(again.made_now);
    EXPECT_FALSE(saw_half);
    EXPECT_TRUE(cache_entry_complete(again.dir, kMarker));
}

} // namespace
} // namespace ksweep
