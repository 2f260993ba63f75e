// What ksweep writes for others to read (mails, report.md/json, index.md/json, SARIF, LAVA job
// metadata, check's lines) names no path of the machine that wrote it: neither the tree's
// absolute path nor ksweep's cache. Every test that makes such an output greps it with this.
#pragma once

#include "core/cache_dir.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

namespace ksweep::test {

// The tree's absolute path in both spellings, and the cache's.
inline std::vector<std::string> machine_paths(const std::string& tree) {
    std::vector<std::string> paths;
    std::error_code ec;
    for (const std::filesystem::path& p :
         {std::filesystem::absolute(tree).lexically_normal(), std::filesystem::canonical(tree, ec),
          std::filesystem::path(ksweep::cache_dir()).lexically_normal()}) {
        std::string s = p.string();
        while (s.size() > 1 && s.back() == '/')
            s.pop_back();
        if (s.size() > 1)
            paths.push_back(s);
    }
    return paths;
}

// Fails the test, naming `what` and the line, for each mention of a machine path in `text`.
inline void expect_shareable(const std::string& text, const std::string& tree,
                             const std::string& what) {
    for (const std::string& path : machine_paths(tree)) {
        const size_t at = text.find(path);
        if (at == std::string::npos)
            continue;
        const size_t begin =
            text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
        ADD_FAILURE() << what << " names " << path << ": "
                      << text.substr(begin, text.find('\n', at) - begin);
    }
}

// expect_shareable() for every file under `dir`.
inline void expect_shareable_files(const std::string& dir, const std::string& tree) {
    size_t files = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file() || e.path().extension() == ".svg" ||
            e.path().extension() == ".png")
            continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        expect_shareable(text.str(), tree, e.path().string());
        ++files;
    }
    EXPECT_GT(files, 0u) << dir << " holds no file";
}

} // namespace ksweep::test
