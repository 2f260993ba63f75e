// Old branches of a scratch repository. Every `ksweep series` run (and `ksweep demo`) leaves a
// ksweep/<rule>-<date>[-N] branch in the scratch repository of a tree outside git; this keeps
// their number bounded. It takes a ScratchRepository, which only open_series_repo makes for a
// repository ksweep created itself: a branch in a user's own repository is the user's result
// and is never deleted.
#pragma once

#include "git/repository.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ksweep::git {

// Enough to validate and resend the last few weeks of runs (demo runs leave two a day), few
// enough that listing the repository's branches stays short.
constexpr size_t kScratchBranchesKept = 20;

// Deletes the oldest refs/heads/ksweep/* branches (by their tip's committer time, then name)
// until at most `keep` remain, never one of `just_created` (short names, "ksweep/x-20260921").
// Other refs, refs/ksweep/base/* among them, are left alone. Returns how many were deleted.
size_t prune_scratch_branches(const ScratchRepository& scratch,
                              const std::vector<std::string>& just_created,
                              size_t keep = kScratchBranchesKept);

} // namespace ksweep::git
