#include "core/cache_dir.h"

#include <cstdlib>

namespace ksweep {

std::string cache_dir() {
    if (const char* dir = std::getenv("KSWEEP_CACHE"); dir && *dir)
        return dir;
    const char* home = std::getenv("HOME");
    return std::string(home ? home : "/tmp") + "/.cache/ksweep";
}

} // namespace ksweep
