// Who applies a patch: the maintainer tree a tree-wide sweep sends each patch to.
//
// The most specific MAINTAINERS section of the patch's files that names a tree (T:) decides:
// drivers/iio/adc/foo.c has its own section without T:, so "IIO SUBSYSTEM AND DRIVERS" and
// its jic23/iio.git take it. THE REST's T: (Linus' tree) does not count: a file whose only
// tree is that one goes with the M:/L: set of its most specific section, as does a file of a
// section that names no tree. Patches of one tree form series of their own (sweep_plan.h).
#pragma once

#include "series/maintainers.h"

#include <string>
#include <vector>

namespace ksweep::series {

struct TreeAssignment {
    std::string key;   // what makes two patches one tree: the T: line, or "M/L: ..." without one
    std::string tree;  // the T: line as written; "" when the entry has none
    std::string entry; // the MAINTAINERS section that decided
    std::string slug;  // short name for the tree's series: "iio", "input", "arm-soc"
};

// The assignment of the patch's first file (a patch is one driver: its files share sections).
TreeAssignment assign_tree(const Maintainers& maintainers, const std::vector<std::string>& files);

// "iio" for "git git://git.kernel.org/pub/scm/linux/kernel/git/jic23/iio.git", "tip" for
// ".../tip/tip.git", "broonie" for ".../broonie/linux.git for-next" (a tree called linux is
// named after its owner).
std::string tree_slug(const std::string& tree_line);

} // namespace ksweep::series
