// The checks every YAML file of ours (rules, device profiles) makes, reporting what is wrong as
// "file:line:col: message" through the caller's own exception type. Header-only, so libraries
// that do not link ksweep_core (the device back end) use it too.
#pragma once

#include <algorithm>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <yaml-cpp/yaml.h>

namespace ksweep {

template <typename Error> struct YamlChecks {
    [[noreturn]] static void fail(const std::string& path, const YAML::Mark& mark,
                                  const std::string& what) {
        std::ostringstream os;
        // An empty document has no position (-1): point at its start.
        os << path << ':' << std::max(mark.line, 0) + 1 << ':' << std::max(mark.column, 0) + 1
           << ": " << what;
        throw Error(os.str());
    }

    // The text of the file at `path`, or "path: cannot open <what>".
    static std::string read_text(const std::string& path, const std::string& what) {
        std::ifstream in(path);
        if (!in)
            throw Error(path + ": cannot open " + what);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }

    // The document, or a positioned error for a file that is not YAML.
    static YAML::Node load(const std::string& text, const std::string& path) {
        try {
            return YAML::Load(text);
        } catch (const YAML::ParserException& e) {
            fail(path, e.mark, e.msg);
        }
    }

    static void require_map(const std::string& path, const YAML::Node& node, const char* what) {
        if (!node.IsMap())
            fail(path, node.Mark(), std::string(what) + " must be a mapping");
    }

    // A misspelt key is an error, not a silently ignored setting.
    static void reject_unknown_keys(const std::string& path, const YAML::Node& map,
                                    std::initializer_list<const char*> known) {
        for (const auto& kv : map) {
            auto key = kv.first.as<std::string>();
            if (std::none_of(known.begin(), known.end(), [&](const char* k) { return key == k; }))
                fail(path, kv.first.Mark(), "unknown key '" + key + "'");
        }
    }
};

} // namespace ksweep
