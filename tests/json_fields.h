// Reading ksweep's JSON output in tests, through the library ksweep writes it with (nlohmann,
// core/json.h): a field that is absent, null or of another type reads as the fallback, so an
// assertion on it fails with a value to compare instead of an exception.
#pragma once

#include "core/json.h"

#include <string>

namespace ksweep::test {

// The document, or a discarded value (is_discarded(), not an object) when `text` is no JSON.
inline Json parse_json(const std::string& text) {
    return Json::parse(text, nullptr, false);
}

inline std::string json_string(const Json& o, const char* key, const std::string& fallback = "") {
    auto v = o.find(key);
    return v != o.end() && v->is_string() ? v->get<std::string>() : fallback;
}

inline long long json_integer(const Json& o, const char* key, long long fallback = -1) {
    auto v = o.find(key);
    return v != o.end() && v->is_number_integer() ? v->get<long long>() : fallback;
}

inline bool json_bool(const Json& o, const char* key) {
    auto v = o.find(key);
    return v != o.end() && v->is_boolean() && v->get<bool>();
}

} // namespace ksweep::test
