#include "cli/tree_paths.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep::cli {

std::vector<std::string> tree_relative_paths(const std::string& tree,
                                             const std::vector<std::string>& args) {
    std::vector<std::string> paths;
    paths.reserve(args.size());
    for (const auto& arg : args) {
        fs::path p = arg;
        if (p.is_absolute())
            p = p.lexically_relative(fs::absolute(tree));
        paths.push_back(p.generic_string());
    }
    return paths;
}

} // namespace ksweep::cli
