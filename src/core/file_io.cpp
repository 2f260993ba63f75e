#include "core/file_io.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <system_error>
#include <unistd.h>

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

bool write_file_whole(const fs::path& path, std::string_view text) {
    const fs::path tmp = path.string() + ".tmp" + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!(out.write(text.data(), static_cast<std::streamsize>(text.size())) << std::flush)) {
            std::error_code ec;
            fs::remove(tmp, ec);
            return false;
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec)
        fs::remove(tmp, ec);
    return !ec;
}

std::string read_at_most(std::istream& in, size_t limit) {
    std::string text;
    std::string chunk(size_t{1} << 20, '\0');
    while (in && text.size() <= limit) {
        const size_t want = std::min(chunk.size(), limit + 1 - text.size());
        in.read(chunk.data(), static_cast<std::streamsize>(want));
        text.append(chunk.data(), static_cast<size_t>(in.gcount()));
    }
    if (text.size() > limit)
        throw InputTooLarge("larger than the " + std::to_string(limit >> 20) +
                            " MiB ksweep reads of one input");
    return text;
}

std::optional<std::string> read_file_at_most(const fs::path& path, size_t limit) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return std::nullopt;
    return read_at_most(in, limit);
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
