// The applier: refuses edit groups that overlap, then splices the edits into the text.
#pragma once

#include "rewrite/planner.h"

#include <string>
#include <vector>

namespace ksweep {

// Whether two edits touch the same text: overlapping ranges, an insertion strictly inside a
// replaced range, or two insertions at one point (their order would be a guess).
bool edits_conflict(const Edit& a, const Edit& b);

// Which groups can be applied: in order, each group is kept when none of its edits conflicts
// with an edit of a group kept before it (nor with another of its own). A refused group is
// refused whole.
std::vector<bool> accept_groups(const std::vector<EditGroup>& groups);

// The text with the edits applied. Throws std::logic_error on conflicting edits: the caller
// checks with accept_groups() first, so that is a bug, not an input error.
std::string apply_edits(const std::string& text, std::vector<Edit> edits);

} // namespace ksweep
