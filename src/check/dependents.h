// The files a header change can reach without the patch touching them: every C file that
// names a constant the patch redefines and could sleep on it. Found by reading the files as
// text (the headers they include are not resolved), widening the names through the macros of
// the headers found on the way.
#pragma once

#include "check/tree_state.h"

#include <set>
#include <string>
#include <vector>

namespace ksweep::check {

struct Dependents {
    std::vector<std::string> files; // tree-relative .c and .h files, sorted
    std::set<std::string> names;    // the changed names, widened through header macros
    std::vector<std::string> scope; // the directories searched ("" is the whole tree)
    size_t files_read = 0;
};

// Where a change to `header` can be seen: anywhere for include/ and arch/*/include/, else the
// header's own directory and below (a driver's private header).
std::string header_scope(const std::string& header);

// Files under the scopes of `headers` (in `state`) that name one of `names` and one of
// `sleepers` (the rule's functions, or a macro among the names whose body calls one).
Dependents find_dependents(const TreeState& state, const std::string& tree,
                           const std::vector<std::string>& headers, std::set<std::string> names,
                           const std::vector<std::string>& functions);

} // namespace ksweep::check
