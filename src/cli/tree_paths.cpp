#include "cli/tree_paths.h"

#include "core/tree_path.h"
#include "kbuild/kernel_tree.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep::cli {

namespace {

bool is_under(const fs::path& path, const fs::path& top) {
    const fs::path rel = path.lexically_relative(top);
    return !rel.empty() && *rel.begin() != "..";
}

bool is_c_source(const fs::path& path) {
    return path.extension() == ".c" || path.extension() == ".h";
}

} // namespace

std::string inside_tree(const std::string& tree, const std::string& path) {
    const fs::path top = fs::absolute(tree).lexically_normal();
    try {
        // A relative PATH is read from the tree's top, as the commands document it.
        return user_path_in_tree(top, path, top);
    } catch (const TreePathError& e) {
        const fs::path named = (top / path).lexically_normal();
        if (!is_under(named, top) && named != top)
            throw UsageError(path + " is outside the tree " + tree +
                             ": give a path inside it (relative to it, or absolute)");
        throw UsageError(path + " leads outside the tree " + tree + " through a symbolic link (" +
                         e.what() + ")");
    }
}

std::vector<std::string> tree_relative_paths(const std::string& tree,
                                             const std::vector<std::string>& args) {
    std::vector<std::string> paths;
    paths.reserve(args.size());
    for (const auto& arg : args) {
        std::string rel = inside_tree(tree, arg);
        const fs::path full = fs::path(tree) / rel;
        std::error_code ec;
        const fs::file_status status = fs::status(full, ec);
        if (!fs::exists(status))
            throw UsageError(arg + ": no such file or directory in the tree " + tree);
        if (!fs::is_directory(status) && !is_c_source(full))
            throw UsageError(arg + ": not a C file (.c or .h) nor a directory: the rules look "
                                   "at C source only");
        paths.push_back(rel.empty() ? "." : rel);
    }
    return paths;
}

std::optional<std::string> kernel_tree_top(const std::string& dir) {
    for (fs::path p = fs::absolute(dir).lexically_normal(); !p.empty(); p = p.parent_path()) {
        if (kbuild::read_kernel_version(p.string()))
            return p.string();
        if (p == p.root_path())
            break;
    }
    return std::nullopt;
}

void require_tree_top(const std::string& command, const std::string& tree,
                      const std::vector<std::string>& paths, bool takes_paths) {
    std::error_code ec;
    if (!fs::exists(tree, ec))
        throw UsageError("TREE " + tree + ": no such directory");
    if (!fs::is_directory(tree, ec))
        throw UsageError("TREE " + tree + " is not a directory");
    if (kbuild::read_kernel_version(tree))
        return;
    const auto top = kernel_tree_top(tree);
    if (!top)
        return; // not in a kernel tree at all: a stand-in tree, or the command says why later
    const fs::path abs_tree = fs::absolute(tree).lexically_normal();
    const std::string sub = abs_tree.lexically_relative(*top).generic_string();
    // The top as the user would type it: relative when TREE was given relative.
    const std::string shown = fs::path(tree).is_absolute()
                                  ? *top
                                  : fs::path(*top).lexically_relative(fs::current_path()).string();
    std::string suggestion = "ksweep " + command + " " + shown;
    for (const std::string& p : paths)
        suggestion += " " + sub + "/" + p;
    if (paths.empty() && takes_paths)
        suggestion += " " + sub;
    throw UsageError(tree + " is not the top of a kernel tree but a directory inside " + shown +
                     ": did you mean '" + suggestion + "'?");
}

} // namespace ksweep::cli
