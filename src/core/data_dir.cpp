#include "core/data_dir.h"

#include <cstdlib>

namespace ksweep {

std::string data_dir() {
    const char* dir = std::getenv("KSWEEP_DATA_DIR");
    return dir && *dir ? dir : KSWEEP_DATA_DIR;
}

std::string data_file(const std::string& relative) {
    return data_dir() + "/" + relative;
}

} // namespace ksweep
