// Where Debian's trees are for the integration tests: $KSWEEP_TREE_6_1 (or _6_12), else that
// line of ~/.cache/ksweep/env (written by scripts/setup.sh); "" if neither.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
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

// The tree's version as its own kbuild says it (`make -s kernelversion`): tests assert against
// this, never against a release written into the test, since Debian moves its packages on.
inline std::string tree_kernel_version(const std::string& tree) {
    std::string command =
        "make -s --no-print-directory -C '" + tree + "' kernelversion 2>/dev/null";
    std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
    if (!pipe)
        return "";
    std::string out;
    std::array<char, 128> buffer{};
    while (fgets(buffer.data(), buffer.size(), pipe.get()))
        out += buffer.data();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    return out;
}

// "FILE:LINE" of the first line of the tree's `file` that holds `text` (FILE:0 when none): a
// test names a place in a Debian tree by what is written there, since point releases move lines.
inline std::string place_in_tree(const std::string& tree, const std::string& file,
                                 const std::string& text) {
    std::ifstream in(tree + "/" + file);
    unsigned number = 0;
    for (std::string line; std::getline(in, line);)
        if (++number, line.find(text) != std::string::npos)
            return file + ":" + std::to_string(number);
    return file + ":0";
}

// The enumerator TPM_TIMEOUT's place in drivers/char/tpm/tpm.h, where check says it is defined.
inline std::string tpm_timeout_place(const std::string& tree) {
    return place_in_tree(tree, "drivers/char/tpm/tpm.h", "TPM_TIMEOUT = ");
}

inline std::string tree_6_1() {
    return tree_from_env("KSWEEP_TREE_6_1");
}
inline std::string tree_6_12() {
    return tree_from_env("KSWEEP_TREE_6_12");
}

} // namespace ksweep::test
