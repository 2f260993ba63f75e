#include "core/shared_paths.h"

#include "core/cache_dir.h"
#include "core/data_dir.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

// The spellings of a directory a text may hold, each ending in '/'.
std::vector<std::string> prefixes_of(const std::string& dir) {
    std::vector<std::string> out;
    if (dir.empty())
        return out;
    std::error_code ec;
    for (const fs::path& p : {fs::absolute(dir, ec).lexically_normal(), fs::canonical(dir, ec)}) {
        std::string prefix = p.string();
        while (prefix.size() > 1 && prefix.ends_with('/'))
            prefix.pop_back();
        if (prefix.empty() || prefix == "/")
            continue;
        prefix += '/';
        if (std::find(out.begin(), out.end(), prefix) == out.end())
            out.push_back(prefix);
    }
    return out;
}

} // namespace

std::string with_roots(std::string text, const std::vector<PathRoot>& roots) {
    for (const PathRoot& root : roots)
        for (const std::string& prefix : prefixes_of(root.dir))
            for (size_t at = 0; (at = text.find(prefix, at)) != std::string::npos;
                 at += root.written_as.size())
                text.replace(at, prefix.size(), root.written_as);
    return text;
}

std::string without_roots(std::string text, const std::vector<std::string>& roots) {
    std::vector<PathRoot> relative;
    for (const std::string& root : roots)
        relative.push_back({root, ""});
    return with_roots(std::move(text), relative);
}

std::vector<PathRoot> machine_roots(const std::string& tree) {
    return {{tree, ""}, {cache_dir(), "$KSWEEP_CACHE/"}};
}

std::string shareable_text(const std::string& text, const std::string& tree,
                           const std::vector<PathRoot>& more) {
    std::vector<PathRoot> roots{{tree, ""}};
    roots.insert(roots.end(), more.begin(), more.end());
    roots.push_back({cache_dir(), "$KSWEEP_CACHE/"});
    roots.push_back({data_dir(), ""});
    return with_roots(text, roots);
}

std::string shareable_path(const std::string& path, const std::string& tree) {
    if (fs::path(path).is_relative()) // relative already: names nothing of this machine
        return !tree.empty() && path == tree ? "." : path;
    std::error_code ec;
    const std::string abs = fs::absolute(path, ec).lexically_normal().string() + "/";
    const std::vector<std::string> tops = prefixes_of(tree);
    if (std::find(tops.begin(), tops.end(), abs) != tops.end())
        return ".";
    std::string shared = shareable_text(abs, tree);
    if (shared == abs)
        return path;
    shared.pop_back();
    return shared.empty() ? "." : shared;
}

std::string tree_name(const std::string& tree) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(tree, ec), ec);
    if (p.filename().empty())
        p = p.parent_path();
    return p.filename().string();
}

} // namespace ksweep
