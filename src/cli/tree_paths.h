// The PATH... arguments of scan, fix and series, as paths relative to the tree they name.
#pragma once

#include <string>
#include <vector>

namespace ksweep::cli {

// `args` as tree-relative generic paths: an absolute path inside `tree` is as good as a
// tree-relative one; relative paths are taken as tree-relative already and kept as given.
std::vector<std::string> tree_relative_paths(const std::string& tree,
                                             const std::vector<std::string>& args);

} // namespace ksweep::cli
