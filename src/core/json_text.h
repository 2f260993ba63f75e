// JSON string literals for the JSON files ksweep writes by hand (fixed keys, escaped values):
// validate's report.json, series' index.json.
#pragma once

#include <string>

namespace ksweep {

// `s` as a JSON string, quotes included: '"' '\\' and control characters escaped, other
// bytes (UTF-8) as they are.
std::string json_quote(const std::string& s);

} // namespace ksweep
