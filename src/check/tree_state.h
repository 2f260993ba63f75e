// The tree as it is at one point of a series: the tree on disk (or a commit's parent, for
// --git) with the files the patches so far have changed. Scans of that state resolve headers
// against it: through a shadow tree (shadow_tree.h) when a changed file is a header.
#pragma once

#include "check/patch_check.h"
#include "check/shadow_tree.h"

#include <memory>
#include <optional>
#include <string>

namespace ksweep::check {

class TreeState {
  public:
    TreeState(std::string tree, Overlay changed, PreimageReader base)
        : tree_(std::move(tree)), changed_(std::move(changed)), base_(std::move(base)) {}

    // The file's text in this state; nullopt when it does not exist.
    std::optional<std::string> read(const std::string& path) const;
    // The files that differ from the base.
    const Overlay& changed() const { return changed_; }
    // A directory that looks like this state to the compiler: the tree itself, or a shadow
    // of it with the changed headers in place (made on first use, removed with this).
    const std::string& scan_root() const;

  private:
    std::string tree_;
    Overlay changed_;
    PreimageReader base_;
    mutable std::unique_ptr<ShadowTree> shadow_; // made by the first scan_root()
};

} // namespace ksweep::check
