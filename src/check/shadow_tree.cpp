#include "check/shadow_tree.h"

#include "core/file_io.h"

#include <fstream>
#include <stdexcept>
#include <system_error>

namespace fs = std::filesystem;

namespace ksweep::check {

ShadowTree::ShadowTree(const std::string& tree,
                       const std::map<std::string, std::optional<std::string>>& files)
    : tree_(fs::absolute(tree)) {
    TempDir until_built("ksweep-shadow"); // a constructor that throws leaves no directory
    root_ = until_built.path().string();
    link_entries("");
    for (const auto& [rel, text] : files) {
        fs::path path(rel);
        if (path.has_parent_path())
            materialize(path.parent_path());
        fs::path target = fs::path(root_) / path;
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

void ShadowTree::materialize(const fs::path& rel_dir) {
    if (rel_dir.has_parent_path())
        materialize(rel_dir.parent_path());
    fs::path here = fs::path(root_) / rel_dir;
    if (fs::is_symlink(here)) {
        fs::remove(here);
        fs::create_directory(here);
        link_entries(rel_dir);
    } else if (!fs::exists(here)) {
        fs::create_directory(here);
    }
}

} // namespace ksweep::check
