// Which state of the tree a run of patches is checked against. A CI job checks a branch at its
// tip, and b4 prep checks the patches it has committed: there the tree already holds them, and
// checkpatch.pl checks the same mail in either state. So: when the patches apply to the tree,
// the tree is their base; when it already holds them (a diff's `index` line names the tree's
// blob as its post-image, or the patches apply in reverse), their base is the tree with them
// taken out again: each file's pre-image from git when the repository has the blob the
// `index` line names, else from the hunks applied in reverse. The check then runs forward from
// that base either way, so its verdicts are the same.
#pragma once

#include "check/patch_check.h"
#include "check/unified_diff.h"

#include <string>
#include <vector>

namespace ksweep::check {

struct BaseState {
    bool holds = false; // the tree already holds the patches
    Overlay base;       // with `holds`: the text before the patches of every file they change
    std::string said;   // one line for stderr: the state found, and where the base came from
};

// `patches` in the order they apply (cover letters, which change nothing, may be among them).
// Throws CheckError when the tree is in neither state: the forward application's error, and
// why the reverse one failed.
BaseState find_base_state(const std::vector<Patch>& patches, const std::string& tree);

// The same diff taken the other way: new file <-> deleted file, rename back, each hunk's
// added and removed lines swapped (a copy undone is the copy deleted).
FileDiff reversed(const FileDiff& diff);

} // namespace ksweep::check
