// Checks a fixed file before anyone sees it: a re-scan of the new text finds none of the fixed
// sites, the semantic engine still parses it if it parsed the original, and fixing the new
// text again changes nothing.
#pragma once

#include "rewrite/fixer.h"

#include <optional>
#include <string>

namespace ksweep {

// nullopt when the fix holds; else what went wrong, for the skipped sites' reason.
// `fixed_point`: no site was refused for overlapping, so a second fix must change nothing (a
// refused site may legitimately be fixed by a second run).
std::optional<std::string> verify_fix(const Rule& rule, const ScanOptions& options,
                                      const ScanResult& scan, const FileFix& fix, bool fixed_point);

} // namespace ksweep
