// What identifies the running ksweep's code, for cache entries made from its analysis (a
// file's parse results, the tree's sleep evaluations): the executable's size and modification
// time. A rebuilt or upgraded ksweep gets new entries instead of being served what older code
// concluded; a format version alone would rely on every change remembering to raise it.
#pragma once

#include <string>

namespace ksweep {

// "exe 123456 1764780000123456789" (one stat of /proc/self/exe, made once); "exe unknown"
// when it cannot be read, which still keys consistently within one build.
const std::string& build_identity();

} // namespace ksweep
