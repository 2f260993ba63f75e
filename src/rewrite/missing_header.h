// A parse that failed because a header is missing fails the same way until the header appears in
// one of the places the compiler looked for it: the including file's folder and every include
// folder of the arguments. Kept parse results (parse_cache.h) and kept failures of a file's
// prefix (preamble_cache.h) are trusted only while it is still missing.
#pragma once

#include "core/json.h"

#include <optional>
#include <string>
#include <vector>

namespace ksweep {

// From a parse's first error, "FILE:LINE: 'NAME' file not found", its arguments (without the
// file) and the tree a relative FILE is in ("": none is): the header and where it was looked
// for, as JSON ({"name", "dirs"}). nullopt: the error is not one of a missing file, FILE's
// folder is not known, or the compiler also searched its own folders (no -nostdinc, which kernel
// builds always give).
std::optional<Json> missing_header(const std::string& error, const std::vector<std::string>& args,
                                   const std::string& tree);

// The header `missing` (missing_header()'s JSON) is still in none of its folders.
bool still_missing(const Json& missing);

} // namespace ksweep
