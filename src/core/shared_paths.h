// Paths in what people share (mails, report.md/json, index.md/json, SARIF, check's lines): never
// this machine's. A path in the tree is written tree-relative, one in ksweep's cache as
// "$KSWEEP_CACHE/<rest>" (the variable that moves the cache), one among ksweep's own data
// files (rules/...) relative to ksweep's source; anything else is kept.
#pragma once

#include <string>
#include <vector>

namespace ksweep {

// A directory whose mentions in a text are written another way: "" makes the paths under it
// relative to it.
struct PathRoot {
    std::string dir;
    std::string written_as;
};

// `text` with every mention of each root's directory ("/abs/dir/", in its absolute and its
// canonical spelling; "." is the working directory) written as the root says, in order.
std::string with_roots(std::string text, const std::vector<PathRoot>& roots);

// with_roots() for every root given as "": the paths under them made relative.
std::string without_roots(std::string text, const std::vector<std::string>& roots);

// The tree ("" : relative to it) and the cache ("$KSWEEP_CACHE/"): the roots every shared
// output writes another way.
std::vector<PathRoot> machine_roots(const std::string& tree);

// A whole message made shareable: paths in the tree relative to it, then those under `more`
// (an output folder...), in the cache "$KSWEEP_CACHE/...", in ksweep's data directory relative.
std::string shareable_text(const std::string& text, const std::string& tree = "",
                           const std::vector<PathRoot>& more = {});

// One path as shareable_text() writes it: "." for the tree itself; a relative path, or one
// outside them all, is kept as given.
std::string shareable_path(const std::string& path, const std::string& tree = "");

// The tree as shared outputs name it: its directory's name ("linux", "linux-source-6.1"; the
// working directory's for ".").
std::string tree_name(const std::string& tree);

} // namespace ksweep
