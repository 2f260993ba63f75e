// Reading a JSON file ksweep wrote earlier (a validate report, a sweep index) strictly: a
// missing or null field takes its default, a field of the wrong type is an error that names the
// file and the field's place in it ("report.json: patches[0]: 'files' must be an array of
// paths").
#pragma once

#include "core/json.h"
#include "core/tree_path.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace ksweep {

// "file: where in it: what".
[[noreturn]] inline void json_fail(const std::string& path, const std::string& where,
                                   const std::string& what) {
    throw std::runtime_error(path + ": " + (where.empty() ? "" : where + ": ") + what);
}

// The fields of one object of a document, naming the object's place in messages.
class JsonFields {
  public:
    JsonFields(const std::string& path, const Json& object, std::string where)
        : path_(path), object_(object), where_(std::move(where)) {}

    // object[key] when present and not null, else `fallback`; a value of the wrong type is an
    // error.
    template <typename T> T get(const char* key, T fallback = T()) const {
        auto it = object_.find(key);
        if (it == object_.end() || it->is_null())
            return fallback;
        if (!has_type<T>(*it))
            json_fail(path_, where_, std::string("'") + key + "' must be " + expected<T>());
        return it->template get<T>();
    }

    // get<std::vector<std::string>>(key), each entry a tree-relative path checked by
    // core/tree_path.h: the document is outside input, and its paths are used in a tree.
    std::vector<std::string> tree_paths(const char* key) const {
        std::vector<std::string> paths = get<std::vector<std::string>>(key);
        for (size_t i = 0; i < paths.size(); ++i)
            checked(key + ("[" + std::to_string(i) + "]"), [&] { checked_tree_path(paths[i]); });
        return paths;
    }

    // get<std::string>(key), a single directory entry (core/tree_path.h's checked_name()) when
    // present ("" when not: the caller says what is missing).
    std::string name(const char* key) const {
        std::string name = get<std::string>(key);
        if (!name.empty())
            checked(key, [&] { checked_name(name); });
        return name;
    }

  private:
    template <typename Check> void checked(const std::string& field, Check check) const {
        try {
            check();
        } catch (const TreePathError& e) {
            json_fail(path_, where_.empty() ? field : where_ + "." + field, e.what());
        }
    }

    template <typename T> static bool has_type(const Json& v) {
        if constexpr (std::is_same_v<T, bool>)
            return v.is_boolean();
        else if constexpr (std::is_integral_v<T>)
            return v.is_number_integer() && (std::is_signed_v<T> || v.is_number_unsigned());
        else if constexpr (std::is_floating_point_v<T>)
            return v.is_number();
        else if constexpr (std::is_same_v<T, std::string>)
            return v.is_string();
        else
            return v.is_array() &&
                   std::all_of(v.begin(), v.end(), [](const Json& e) { return e.is_string(); });
    }
    template <typename T> static const char* expected() {
        if constexpr (std::is_same_v<T, bool>)
            return "true or false";
        else if constexpr (std::is_integral_v<T>)
            return std::is_signed_v<T> ? "an integer" : "a whole number";
        else if constexpr (std::is_floating_point_v<T>)
            return "a number";
        else if constexpr (std::is_same_v<T, std::string>)
            return "a string";
        else
            return "an array of paths";
    }

    const std::string& path_;
    const Json& object_;
    std::string where_;
};

} // namespace ksweep
