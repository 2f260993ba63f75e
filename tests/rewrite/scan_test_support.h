// Helpers for the scanner's tests: the shipped rule, the fixture tree, a finding by line.
#pragma once

#include "core/rule.h"
#include "rewrite/scanner.h"

#include <gtest/gtest.h>
#include <string>

namespace ksweep::testing {

inline Rule msleep_rule() {
    return load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
}

inline std::string scan_fixture_tree() {
    return std::string(KSWEEP_FIXTURES) + "/scan";
}

inline ScanResult scan_fixture(const std::string& rel_path, bool semantic = true) {
    ScanOptions options;
    options.tree = scan_fixture_tree();
    options.paths = {rel_path};
    options.semantic = semantic;
    options.jobs = 1;
    return scan_tree(msleep_rule(), options);
}

// The finding on `line`; fails the test when there is not exactly one.
inline const Finding& at_line(const ScanResult& r, unsigned line) {
    const Finding* found = nullptr;
    int count = 0;
    for (const auto& f : r.findings)
        if (f.line == line) {
            found = &f;
            ++count;
        }
    if (count != 1)
        throw std::runtime_error("expected one finding on line " + std::to_string(line) + ", got " +
                                 std::to_string(count));
    return *found;
}

} // namespace ksweep::testing
