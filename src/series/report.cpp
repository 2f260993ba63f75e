#include "series/report.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

namespace ksweep::series {

namespace {

[[noreturn]] void fail(const std::string& path, const YAML::Node& node, const std::string& what) {
    const auto mark = node.Mark();
    throw std::runtime_error(path + ":" + std::to_string(mark.line + 1) + ":" +
                             std::to_string(mark.column + 1) + ": " + what);
}

template <typename T>
T field(const std::string& path, const YAML::Node& map, const char* key, const char* expected) {
    if (!map[key])
        fail(path, map, std::string("missing '") + key + "'");
    try {
        return map[key].as<T>();
    } catch (const YAML::Exception&) {
        fail(path, map[key], std::string("'") + key + "' must be " + expected);
    }
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

} // namespace

const PatchMeasurement* ValidationReport::for_files(const std::vector<std::string>& files) const {
    for (const auto& p : patches)
        for (const auto& f : p.files)
            if (std::find(files.begin(), files.end(), f) != files.end())
                return &p;
    return nullptr;
}

ValidationReport parse_report(const std::string& text, const std::string& path) {
    YAML::Node root;
    try {
        root = YAML::Load(text); // JSON is YAML; yaml-cpp is already a dependency
    } catch (const YAML::ParserException& e) {
        throw std::runtime_error(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                                 std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
    if (!root.IsMap())
        fail(path, root, "a report must be a JSON object");
    ValidationReport r;
    if (root["environment"])
        r.environment = field<std::string>(path, root, "environment", "a string");
    if (root["summary"])
        r.summary = field<std::string>(path, root, "summary", "a string");
    if (root["patches"]) {
        if (!root["patches"].IsSequence())
            fail(path, root["patches"], "'patches' must be an array");
        for (const auto& node : root["patches"]) {
            if (!node.IsMap())
                fail(path, node, "each entry of 'patches' must be an object");
            PatchMeasurement m;
            m.files = field<std::vector<std::string>>(path, node, "files", "an array of paths");
            m.metric = field<std::string>(path, node, "metric", "a string");
            m.before = field<double>(path, node, "before", "a number");
            m.after = field<double>(path, node, "after", "a number");
            if (node["unit"])
                m.unit = field<std::string>(path, node, "unit", "a string");
            if (node["runs"])
                m.runs = field<int>(path, node, "runs", "an integer");
            r.patches.push_back(std::move(m));
        }
    }
    return r;
}

ValidationReport load_report(const std::string& path) {
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error(path + ": cannot open report");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_report(ss.str(), path);
}

std::string describe(const PatchMeasurement& m, const std::string& environment) {
    std::string s = "Measured: " + m.metric + " took " + number(m.before) + " " + m.unit +
                    " before and " + number(m.after) + " " + m.unit + " after this change";
    std::string details = environment;
    if (m.runs > 0)
        details += (details.empty() ? "" : ", ") + std::to_string(m.runs) + " runs each";
    if (!details.empty())
        s += " (" + details + ")";
    return s + ".";
}

} // namespace ksweep::series
