#include "core/cache_entry.h"

#include "core/file_lock.h"

#include <fstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep {

bool cache_entry_complete(const fs::path& dir, const std::string& marker) {
    return fs::exists(dir / marker);
}

CacheEntry make_cache_entry(const fs::path& root, const std::string& key, const std::string& marker,
                            const std::string& marker_text,
                            const std::function<void(const fs::path& dir)>& make) {
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec)
        throw std::runtime_error("cannot create " + root.string() + ": " + ec.message());
    // Held while checking and making: a second run waits, then finds the entry complete.
    FileLock lock((root / (key + ".lock")).string());
    CacheEntry entry{root / key, false};
    if (cache_entry_complete(entry.dir, marker)) {
        // The marker's time is when the entry was last used: `ksweep cache` lists and prunes by it.
        std::error_code ignored;
        fs::last_write_time(entry.dir / marker, fs::file_time_type::clock::now(), ignored);
        return entry;
    }

    fs::remove_all(entry.dir, ec); // a failed or interrupted earlier attempt
    fs::create_directories(entry.dir, ec);
    if (ec)
        throw std::runtime_error("cannot create " + entry.dir.string() + ": " + ec.message());
    make(entry.dir);
    std::ofstream out(entry.dir / marker);
    out << marker_text;
    if (!(out << std::flush))
        throw std::runtime_error("cannot write " + (entry.dir / marker).string());
    entry.made_now = true;
    return entry;
}

} // namespace ksweep
