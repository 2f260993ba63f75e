#include "core/build_identity.h"

#include <sys/stat.h>

namespace ksweep {

const std::string& build_identity() {
    static const std::string identity = [] {
        struct stat st {};
        if (stat("/proc/self/exe", &st) != 0)
            return std::string("exe unknown");
        return "exe " + std::to_string(st.st_size) + " " +
               std::to_string(static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL +
                              st.st_mtim.tv_nsec);
    }();
    return identity;
}

} // namespace ksweep
