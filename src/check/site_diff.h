// Which rule calls of a file a patch brings in. A call after the patch is excused only by the
// same call before it: the same callee and argument tokens in the same file (a move, a
// re-indent) with the same value. So tpm_msleep(X) -> msleep(X), usleep_range() -> msleep(),
// msleep(20) -> msleep(2), a redefined constant under an unchanged call, a new use of a
// macro that sleeps, and a copied file are all new; a moved or renamed call is not, nor an
// untouched call that was small before and still is (the patch did not bring it in).
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "rewrite/scanner.h"

#include <set>
#include <string>
#include <vector>

namespace ksweep::check {

// The file before the patch.
struct Before {
    const ScanResult* scan = nullptr;  // nullptr: it did not exist (a new file, a copy)
    const std::string* text = nullptr; // its text, for the macro uses in it
    // scan resolved the file in the tree before the patch, so its values compare. Without
    // that (a patch that changes no directive, enum or header: every constant means what it
    // meant), the same call text is the same call.
    bool values = false;
};

struct NewSite {
    const Finding* finding = nullptr; // in the scan after the patch
    bool via_macro = false;           // one of ScanResult::macro_uses
    bool on_added_line = false;       // its text is on a line the patch adds
    bool unresolved = false;          // false: actionable; true: a constant nothing evaluated
};

// `added`: lines of the new text the patch adds. `changed`: names whose definitions the patch
// changes; an unresolved call that names one is reported even where it did not move.
std::vector<NewSite> new_sites(const Rule& rule, const ScanResult& after, const Before& before,
                               const std::set<unsigned>& added,
                               const std::set<std::string>& changed);

// Whether comparing values could change the verdict: a call that would be reported (small,
// or an unevaluated constant) has the same text before (a lexical scan is enough to tell),
// and, with `naming`, names one of those names. When not, the values before need no parse.
bool values_matter(const ScanResult& after, const Before& before,
                   const std::set<std::string>* naming);

// An argument that names a constant (a macro or enumerator, upper case by kernel convention)
// the semantic engine would have folded, had it run or parsed the file. Plain variables are
// not: checkpatch.pl passes them too.
bool names_unevaluated_constant(const Finding& f);

} // namespace ksweep::check
