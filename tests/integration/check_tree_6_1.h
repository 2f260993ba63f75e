// Where Debian's trees are for the integration tests: $KSWEEP_TREE_6_1 (or _6_12), else that
// line of ~/.cache/ksweep/env (written by scripts/setup.sh); "" if neither.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace ksweep::test {

inline std::string tree_from_env(const std::string& name) {
    if (const char* t = std::getenv(name.c_str()))
        return t;
    std::ifstream env(std::string(std::getenv("HOME") ? std::getenv("HOME") : "") +
                      "/.cache/ksweep/env");
    for (std::string line; std::getline(env, line);)
        if (line.rfind(name + "=", 0) == 0)
            return line.substr(name.size() + 1);
    return "";
}

inline std::string tree_6_1() {
    return tree_from_env("KSWEEP_TREE_6_1");
}
inline std::string tree_6_12() {
    return tree_from_env("KSWEEP_TREE_6_12");
}

} // namespace ksweep::test
