// A git range as `check` input: one CheckInput per non-merge commit, oldest first, each the
// commit as git format-patch would mail it, applying to the commit's parent. Like
// `checkpatch.pl -g`, "A..B" is a range and a single revision is that one commit.
#pragma once

#include "check/patch_check.h"

#include <string>
#include <vector>

namespace ksweep::check {

// Throws CheckError when the repository or the range cannot be read.
std::vector<CheckInput> git_range_inputs(const std::string& repo_path, const std::string& range);

} // namespace ksweep::check
