#include "core/tree_path.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <system_error>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

[[noreturn]] void refuse(std::string_view path, const std::string& why) {
    throw TreePathError("path " + printable_path(path) + ": " + why);
}

bool is_control(unsigned char c) {
    return c < 0x20 || c == 0x7f;
}

// ".git" as git's verify_dotfile() and its NTFS/HFS protections see it: any case, with
// trailing dots or spaces (Windows drops them), and the 8.3 short name "git~1".
bool is_git_dir_name(std::string_view name) {
    std::string lower;
    for (char c : name)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    while (!lower.empty() && (lower.back() == '.' || lower.back() == ' '))
        lower.pop_back();
    return lower == ".git" || lower == "git~1";
}

// Every component of `p` must be a plain name; the first problem found, in order.
void check_components(std::string_view p) {
    size_t start = 0;
    while (true) {
        size_t end = p.find('/', start);
        std::string_view name = p.substr(start, end == std::string_view::npos ? end : end - start);
        if (name.empty())
            refuse(p, "an empty component ('//' or a trailing '/') names no file");
        if (name == ".")
            refuse(p, "a '.' component: git writes no such path");
        if (name == "..")
            refuse(p, "a '..' component leaves the tree");
        if (is_git_dir_name(name))
            refuse(p, "a '.git' component: git's own directory (its hooks run code), never a "
                      "file of the tree");
        if (name.size() > kMaxNameBytes)
            refuse(p, "a component longer than " + std::to_string(kMaxNameBytes) +
                          " bytes (NAME_MAX)");
        if (end == std::string_view::npos)
            return;
        start = end + 1;
    }
}

// `p` is `base` or below it, component by component (both absolute and normal).
bool within(const fs::path& base, const fs::path& p) {
    auto [b, q] = std::mismatch(base.begin(), base.end(), p.begin(), p.end());
    return b == base.end() || (std::next(b) == base.end() && b->empty());
}

} // namespace

std::string printable_path(std::string_view path) {
    const bool plain = std::none_of(path.begin(), path.end(), [](char c) {
        return is_control(static_cast<unsigned char>(c)) || c == '"' || c == '\\' ||
               static_cast<unsigned char>(c) >= 0x80;
    });
    if (plain)
        return std::string(path);
    std::string out = "\"";
    for (char ch : path) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\t')
            out += "\\t";
        else if (c == '\n')
            out += "\\n";
        else if (c == '"' || c == '\\')
            out += std::string("\\") + ch;
        else if (is_control(c) || c >= 0x80) {
            char octal[5];
            std::snprintf(octal, sizeof octal, "\\%03o", c);
            out += octal;
        } else
            out += ch;
    }
    return out + "\"";
}

std::string checked_tree_path(std::string_view path) {
    if (path.empty())
        refuse(path, "an empty path names no file");
    if (path.size() > kMaxPathBytes)
        refuse(path.substr(0, 64), "longer than " + std::to_string(kMaxPathBytes) +
                                       " bytes (PATH_MAX): no file system opens it");
    if (std::any_of(path.begin(), path.end(),
                    [](char c) { return is_control(static_cast<unsigned char>(c)); }))
        refuse(path, "a NUL or control byte: no file of a tree is named so, and a terminal "
                     "would act on it");
    if (path.front() == '/')
        refuse(path, "an absolute path: a patch names files relative to the tree");
    check_components(path);
    return std::string(path);
}

std::string checked_name(std::string_view name) {
    std::string checked = checked_tree_path(name);
    if (checked.find('/') != std::string::npos)
        refuse(name, "a single name was expected, not a path");
    return checked;
}

fs::path path_in_tree(const fs::path& root, std::string_view path) {
    const std::string rel = checked_tree_path(path);
    fs::path at = root;
    size_t start = 0;
    while (start < rel.size()) {
        size_t end = std::min(rel.find('/', start), rel.size());
        at /= rel.substr(start, end - start);
        std::error_code ec;
        const fs::file_status status = fs::symlink_status(at, ec);
        if (ec || !fs::exists(status))
            break; // what does not exist yet cannot lead anywhere
        if (fs::is_symlink(status))
            refuse(path, "'" + printable_path(rel.substr(0, end)) +
                             "' is a symbolic link in the tree, which could lead anywhere: a "
                             "patch may not reach through it");
        start = end + 1;
    }
    return root / rel;
}

std::string user_path_in_tree(const fs::path& root, const fs::path& path, const fs::path& cwd) {
    std::error_code ec;
    const fs::path real_root = fs::canonical(root, ec);
    if (ec)
        throw TreePathError("tree " + printable_path(root.string()) + ": " + ec.message());
    const fs::path real = fs::weakly_canonical(path.is_absolute() ? path : cwd / path, ec);
    if (ec || !within(real_root, real))
        refuse(path.string(), "not inside the tree " + printable_path(real_root.string()));
    const fs::path rel = real.lexically_relative(real_root);
    return rel == "." ? "" : rel.generic_string();
}

void check_file_mode(std::string_view path, std::string_view mode) {
    if (mode == "100644" || mode == "100755" || mode == "100664")
        return;
    std::string why;
    if (mode == "120000")
        why = "a symbolic link (mode 120000): ksweep check reads C files and has no use for a "
              "link, and a link it made could lead later paths out of the tree";
    else if (mode == "160000")
        why = "a gitlink (mode 160000, a submodule's commit): not a file, and a check of C code "
              "has no use for it";
    else
        why = "mode " + printable_path(mode) + " is not a regular file's (100644 or 100755)";
    refuse(path, why);
}

bool lies_under(const fs::path& root, const fs::path& target) {
    const fs::path name = target.filename();
    if (name.empty() || name == "." || name == "..")
        return false;
    std::error_code ec;
    const fs::path real_root = fs::weakly_canonical(root, ec);
    if (ec)
        return false;
    const fs::path dir = fs::weakly_canonical(target.parent_path(), ec);
    return !ec && within(real_root, dir);
}

} // namespace ksweep
