// L2: the tree's own scripts/checkpatch.pl --strict on one patch mail. Our patches must be
// clean (0 errors, 0 warnings, 0 checks); anything it reports is new by construction, since
// checkpatch looks at the lines a patch adds.
#pragma once

#include "validate/validate_report.h"

#include <string>
#include <string_view>

namespace ksweep::validate {

// Counts and messages from checkpatch's output: each "ERROR:"/"WARNING:"/"CHECK:" line with
// the "#N: FILE:LINE:" line after it; counts from the "total:" line when present.
CheckpatchCounts parse_checkpatch_output(std::string_view output);

struct CheckpatchRun {
    bool ran = false; // false: checkpatch.pl missing or it crashed (error says why)
    std::string error;
    CheckpatchCounts counts;
};

// Runs <tree>/scripts/checkpatch.pl from the tree's top. `tree` may be a sparse checkout:
// missing top-level directories checkpatch looks for to recognise a kernel tree are created
// empty first (git ignores empty directories).
CheckpatchRun run_checkpatch(const std::string& tree, const std::string& patch_path);

} // namespace ksweep::validate
