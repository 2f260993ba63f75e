// The source tree an O= build dir reads: kbuild's `source` link in it, and the tree its
// generated Makefile includes ("include /path/to/linux/Makefile"), which is what
// `make -C <dir> M=...` builds an external module against.
//
// ksweep's build dirs (prepared ones, guest kernels) are keyed by content (tree_fingerprint.h),
// so every tree with the same prepare inputs shares one. The tree that uses one takes it over
// (adopt_build_dir): its module builds then read that tree's headers, the same content as the
// build dir's key says, even when the tree that made it has since changed or been removed.
#pragma once

#include <filesystem>
#include <string>

namespace ksweep::kbuild {

// The tree an O= build dir was made from (or last adopted by): its `source` link, or the tree
// its generated Makefile includes; "" for any other build dir (Debian's headers, a tree
// prepared in place).
std::string source_tree_of(const std::filesystem::path& build_dir);

// Points `build_dir`'s `source` link and generated Makefile at `tree` (canonical), under the
// entry's lock (<build_dir>.lock, as core/cache_entry.h takes it); nothing when they already
// point there or the dir is no O= build dir. Throws std::runtime_error when they cannot be
// rewritten.
void adopt_build_dir(const std::filesystem::path& build_dir, const std::string& tree);

} // namespace ksweep::kbuild
