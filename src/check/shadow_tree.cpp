#include "check/shadow_tree.h"

#include "core/file_io.h"
#include "core/tree_path.h"

#include <fstream>
#include <stdexcept>
#include <system_error>

namespace fs = std::filesystem;

namespace ksweep::check {

namespace {

// Belt and braces: the patch reader has refused every path that could leave the tree, and
// this refuses them again before anything is written or removed.
void check_under(const fs::path& root, const fs::path& target, const std::string& rel) {
    if (!lies_under(root, target))
        throw TreePathError("path " + printable_path(rel) +
                            ": would be written outside the "
                            "shadow tree " +
                            root.string() + "; nothing was written");
}

} // namespace

ShadowTree::ShadowTree(const std::string& tree,
                       const std::map<std::string, std::optional<std::string>>& files)
    : tree_(fs::absolute(tree)) {
    TempDir until_built("ksweep-shadow"); // a constructor that throws leaves no directory
    root_ = until_built.path().string();
    link_entries("");
    for (const auto& [rel, text] : files) {
        const fs::path path(checked_tree_path(rel));
        materialize(path.parent_path(), rel);
        const fs::path target = fs::path(root_) / path;
        check_under(root_, target, rel);
        fs::remove(target);
        if (!text)
            continue;
        std::ofstream out(target, std::ios::binary);
        out << *text;
        if (!out)
            throw std::runtime_error("cannot write " + target.string());
    }
    until_built.release(); // ~ShadowTree removes it from here on
}

ShadowTree::~ShadowTree() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
}

void ShadowTree::link_entries(const fs::path& rel_dir) {
    fs::path source = tree_ / rel_dir;
    std::error_code ec;
    if (!fs::is_directory(source, ec))
        return; // a directory the patch creates
    for (const auto& entry : fs::directory_iterator(source))
        fs::create_symlink(entry.path(), fs::path(root_) / rel_dir / entry.path().filename());
}

// One component at a time from the root down: as deep as the path, never further (the parent
// of "/" is "/"). The only links in the shadow are link_entries()' own, into the tree, and each
// one on the way is replaced before the next component is looked at; the file's own target is
// checked by the caller once all of them are real.
void ShadowTree::materialize(const fs::path& rel_dir, const std::string& rel) {
    fs::path at;
    for (const fs::path& component : rel_dir) {
        at /= component;
        const fs::path here = fs::path(root_) / at;
        std::error_code ec;
        const fs::file_status status = fs::symlink_status(here, ec);
        if (fs::is_directory(status))
            continue; // made real by an earlier file
        if (fs::is_symlink(fs::symlink_status(tree_ / at, ec)))
            throw TreePathError("path " + printable_path(rel) + ": '" +
                                printable_path(at.string()) +
                                "' is a symbolic link in the tree, which could lead anywhere");
        if (fs::is_symlink(status)) {
            fs::remove(here);
            fs::create_directory(here);
            link_entries(at);
        } else {
            fs::create_directory(here);
        }
    }
}

} // namespace ksweep::check
