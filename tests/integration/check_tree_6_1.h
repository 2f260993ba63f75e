// Where Debian's 6.1 tree is for the check integration tests: $KSWEEP_TREE_6_1, else the
// KSWEEP_TREE_6_1= line of ~/.cache/ksweep/env (written by scripts/setup.sh); "" if neither.
#pragma once

#include <cstdlib>
#include <fstream>
#include <string>

namespace ksweep::test {

inline std::string tree_6_1() {
    if (const char* t = std::getenv("KSWEEP_TREE_6_1"))
        return t;
    std::ifstream env(std::string(std::getenv("HOME") ? std::getenv("HOME") : "") +
                      "/.cache/ksweep/env");
    for (std::string line; std::getline(env, line);)
        if (line.rfind("KSWEEP_TREE_6_1=", 0) == 0)
            return line.substr(16);
    return "";
}

} // namespace ksweep::test
