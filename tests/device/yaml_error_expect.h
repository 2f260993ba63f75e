// The device side's YAML files (profiles, the registry) report mistakes as
// "file:line:col: what": this checks one such error.
#pragma once

#include <gtest/gtest.h>
#include <string>

namespace ksweep::device::testing {

// `parse(yaml)` must throw Error whose message starts with "<file>:<where>: " and names `what`.
template <typename Error, typename Parse>
void expect_yaml_error(Parse parse, const std::string& file, const std::string& yaml,
                       const std::string& where, const std::string& what) {
    try {
        parse(yaml);
        ADD_FAILURE() << "accepted: " << yaml;
    } catch (const Error& e) {
        std::string msg = e.what();
        EXPECT_EQ(msg.rfind(file + ":" + where + ": ", 0), 0u) << msg;
        EXPECT_NE(msg.find(what), std::string::npos) << msg;
    }
}

} // namespace ksweep::device::testing
