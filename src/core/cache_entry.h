// One cache entry that takes a long time to make (a prepared build dir, a guest kernel build):
// a directory <root>/<key>, made under an exclusive lock (<root>/<key>.lock, beside it) and
// trusted only once its marker file exists. The marker is written last, so an attempt that
// failed, threw, or was interrupted (Ctrl-C, kill) leaves a directory without one, which the next
// caller removes and makes again instead of trusting. The marker's modification time is when the
// entry was last used (`ksweep cache` lists and prunes by it).
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace ksweep {

struct CacheEntry {
    std::filesystem::path dir;
    bool made_now = false; // `make` ran in this call (false: a complete entry was found)
};

// Returns the entry <root>/<key>, calling `make(dir)` into a fresh empty dir when there is no
// complete one, then writing `marker` (with `marker_text`). An exception from `make` propagates
// and leaves no marker. Throws std::runtime_error when root or the entry cannot be created.
CacheEntry make_cache_entry(const std::filesystem::path& root, const std::string& key,
                            const std::string& marker, const std::string& marker_text,
                            const std::function<void(const std::filesystem::path& dir)>& make);

// True when <dir>/<marker> exists: the entry is complete.
bool cache_entry_complete(const std::filesystem::path& dir, const std::string& marker);

} // namespace ksweep
