// JSON through one library, nlohmann's (Debian's nlohmann-json3-dev), for everything ksweep
// writes and reads. `Json` sorts an object's keys, as scan's JSON always has; `OrderedJson`
// keeps them in the order they are set (check, SARIF, the cross-check).
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

namespace ksweep {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// A double as ksweep's JSON prints it: a whole number without a fraction ("16", where the
// library alone would write "16.0"), any other value in the library's shortest round-trip form.
template <typename J = Json> J json_number(double v) {
    if (std::isfinite(v) && std::trunc(v) == v && std::fabs(v) < 1e15)
        return static_cast<long long>(v);
    return v;
}

// The text of a document: `indent` spaces per level, a newline at the end; bytes that are not
// UTF-8 (a patch's added line may hold any) become U+FFFD instead of an exception.
template <typename J> std::string json_text(const J& document, int indent = 2) {
    return document.dump(indent, ' ', false, J::error_handler_t::replace) + "\n";
}

} // namespace ksweep
