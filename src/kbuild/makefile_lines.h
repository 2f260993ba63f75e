// The one reader of a kbuild Makefile's logical lines, shared by the module parser (modules.h)
// and the flags reader (kbuild_flags.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksweep::kbuild {

// What a line's "\#" becomes: kept as written (the line is copied into a generated Kbuild), or
// '#' (the line is evaluated, as make does).
enum class EscapedHash { keep, resolve };

// The logical lines of a makefile, as make reads them: backslash-newline joins lines (an odd
// number of trailing backslashes; the backslash and the whitespace around it become one space),
// then comments go: from the first '#' that is not escaped by a backslash and not inside a
// variable reference or function call. A comment continued with a backslash goes on to the
// next line, as in make.
std::vector<std::string> logical_lines(std::string_view text, EscapedHash escaped);

} // namespace ksweep::kbuild
