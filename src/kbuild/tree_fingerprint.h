// What identifies a tree for the builds ksweep caches from it (a prepared build directory, a
// guest kernel): a hash of everything kbuild's configuration and prepare steps read — every
// Kconfig*, Makefile* and Kbuild* file, and all of scripts/, include/, tools/ and arch/<arch>/
// — by path, size and modification time. A driver's .c file is not in it: editing one (the
// patch under test) keeps the prepared build, editing a header or a Kconfig makes a new one.
#pragma once

#include <string>

namespace ksweep::kbuild {

// Hex SHA-256 over the tree's prepare inputs, in path order. `arch` is kbuild's SRCARCH
// ("x86"). Throws std::runtime_error when the tree cannot be read.
std::string tree_fingerprint(const std::string& tree, const std::string& arch = "x86");

// The compiler kbuild will use (`gcc --version`'s first line): part of every build key, since
// Kconfig records it and a different compiler means a different build.
std::string compiler_identity();

} // namespace ksweep::kbuild
