#include "check/tree_state.h"

#include <algorithm>

namespace ksweep::check {

std::optional<std::string> TreeState::read(const std::string& path) const {
    if (auto it = changed_.find(path); it != changed_.end())
        return it->second;
    return base_(path);
}

const std::string& TreeState::scan_root() const {
    const bool headers = std::any_of(changed_.begin(), changed_.end(),
                                     [](const auto& file) { return file.first.ends_with(".h"); });
    if (!headers)
        return tree_;
    if (!shadow_)
        shadow_ = std::make_unique<ShadowTree>(tree_, changed_);
    return shadow_->root();
}

} // namespace ksweep::check
