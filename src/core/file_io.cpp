#include "core/file_io.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace ksweep {

std::optional<std::string> read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

fs::path make_temp_dir(std::string_view prefix) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) { // its error names no directory: say which one it was
        const char* tmpdir = std::getenv("TMPDIR");
        base = tmpdir && *tmpdir ? tmpdir : "/tmp";
    }
    std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
    if (!ec && !mkdtemp(pattern.data()))
        ec.assign(errno, std::generic_category());
    if (ec)
        throw std::system_error(ec, "cannot create a temporary directory: " + pattern);
    return pattern;
}

TempDir::~TempDir() {
    std::error_code ignored;
    if (!keep_)
        fs::remove_all(path_, ignored);
}

} // namespace ksweep
