// The TREE and PATH... arguments of the tree-reading commands, checked before anything is read:
// TREE must be the top of the tree (a subdirectory of one is answered "did you mean TREE
// PATH"), and every PATH stays inside it: core's user_path_in_tree() (src/core/tree_path.h, the
// one place that decides which outside path names something in a tree) read from TREE's top.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::cli {

// A command line that cannot be run as given: what() names the argument or option and what
// would fix it. Commands exit 2 with it.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `path` (relative to `tree`, or absolute) as a tree-relative generic path. Throws UsageError
// when it leaves the tree: `..` past its top, an absolute path elsewhere, or a symbolic link
// that points out of it.
std::string inside_tree(const std::string& tree, const std::string& path);

// `args` as tree-relative generic paths (inside_tree), each of which must exist in the tree
// and, when it is a file, be C source (.c or .h). Throws UsageError naming the first that is
// not.
std::vector<std::string> tree_relative_paths(const std::string& tree,
                                             const std::vector<std::string>& args);

// The top of the kernel tree that `dir` lies in, below or at it (a directory whose Makefile
// states VERSION); nullopt outside any.
std::optional<std::string> kernel_tree_top(const std::string& dir);

// Throws UsageError when TREE is not a directory, or is a directory inside a kernel tree
// rather than its top: "did you mean 'ksweep COMMAND TOP SUBDIR [PATH...]'" for a command that
// takes PATHs (`paths` are the ones given), "did you mean 'ksweep COMMAND TOP'" otherwise.
void require_tree_top(const std::string& command, const std::string& tree,
                      const std::vector<std::string>& paths = {}, bool takes_paths = true);

} // namespace ksweep::cli
