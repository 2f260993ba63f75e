// Applying a file's hunks to its text in memory, the way `git apply` does without fuzz: each
// hunk's old side must match exactly, at its stated line or at the nearest offset. The search
// is bounded (64 positions per line of the file), so a hostile patch costs linear time.
#pragma once

#include "check/unified_diff.h"

#include <map>
#include <stdexcept>
#include <string>

namespace ksweep::check {

struct PostImage {
    std::string text;
    // 1-based line in the new text -> the hunk line that added it.
    std::map<unsigned, const DiffLine*> added;
};

// A hunk whose old side is not in the file: what() names the hunk and the first mismatch.
struct ApplyError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `pre` is the file's text before the patch ("" for a new file). The returned PostImage
// points into `diff`, which must outlive it.
PostImage apply_hunks(const FileDiff& diff, const std::string& pre);

} // namespace ksweep::check
