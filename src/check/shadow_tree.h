// A view of a kernel tree with some files replaced, for scanning a patched file whose
// headers the patch also changes. The shadow is a temporary directory of symlinks into the
// real tree; only the directories on the way to a replaced file are real, so building it
// costs a few hundred symlinks, and the real tree is never written to. Every path is checked
// again here (core/tree_path.h) before anything is created or removed: a path that leaves the
// shadow, or goes through a symbolic link of the tree, throws TreePathError.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace ksweep::check {

class ShadowTree {
  public:
    // `files`: tree-relative path -> new text (nullopt: the file is deleted).
    ShadowTree(const std::string& tree,
               const std::map<std::string, std::optional<std::string>>& files);
    ~ShadowTree();
    ShadowTree(const ShadowTree&) = delete;
    ShadowTree& operator=(const ShadowTree&) = delete;

    const std::string& root() const { return root_; }

  private:
    // Turns the symlink at `rel_dir` (and its parents) into a real directory of symlinks;
    // `rel` is the file's path, for errors.
    void materialize(const std::filesystem::path& rel_dir, const std::string& rel);
    void link_entries(const std::filesystem::path& rel_dir);

    std::filesystem::path tree_;
    std::string root_;
};

} // namespace ksweep::check
