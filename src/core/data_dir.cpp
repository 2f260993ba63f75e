#include "core/data_dir.h"

#include <cstdlib>

namespace ksweep {

std::string data_file(const std::string& relative) {
    const char* dir = std::getenv("KSWEEP_DATA_DIR");
    return std::string(dir && *dir ? dir : KSWEEP_DATA_DIR) + "/" + relative;
}

} // namespace ksweep
