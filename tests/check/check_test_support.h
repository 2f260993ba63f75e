// The gate on the fixture tree (tests/fixtures/check/tree): one patch of
// tests/fixtures/check/patches checked the way `ksweep check PATCH` checks it.
#pragma once

#include "check/patch_check.h"
#include "core/file_io.h"

#include <gtest/gtest.h>
#include <string>

namespace ksweep::check::testing {

inline const std::string kTree = std::string(KSWEEP_FIXTURES) + "/check/tree";
inline const std::string kPatches = std::string(KSWEEP_FIXTURES) + "/check/patches";

inline std::string fixture_text(const std::string& path) {
    auto text = ksweep::read_file(path);
    if (!text)
        throw std::runtime_error("cannot read fixture " + path);
    return *text;
}

// "--- /dev/null +++ b/path": the patch that adds the file.
inline std::string new_file_patch(const std::string& path, const std::string& text) {
    std::string body;
    unsigned lines = 0;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        body += "+" + text.substr(start, end - start) + "\n";
        ++lines;
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return "--- /dev/null\n+++ b/" + path + "\n@@ -0,0 +1," + std::to_string(lines) + " @@\n" +
           body;
}

// What read_patches() says about `text`: its DiffError, "" when it reads it.
inline std::string diff_error(const std::string& text) {
    try {
        read_patches(text);
    } catch (const DiffError& e) {
        return e.what();
    }
    return "";
}

inline InputReport check_fixture(const Rule& rule, const std::string& name, bool semantic = true) {
    PatchChecker checker(rule, CheckOptions{kTree, "", semantic, 250});
    Overlay overlay;
    CheckInput input{name, name, fixture_text(kPatches + "/" + name), tree_reader(kTree)};
    return checker.check(input, overlay);
}

} // namespace ksweep::check::testing
