// A file of a tree a test writes, its directories made as needed: the one helper every test
// that builds a small tree by hand uses.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace ksweep::test {

inline void write_file(const std::filesystem::path& path, const std::string& content) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
}

} // namespace ksweep::test
