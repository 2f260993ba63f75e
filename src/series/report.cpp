#include "series/report.h"

#include "core/file_io.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

namespace ksweep::series {

namespace {

[[noreturn]] void fail(const std::string& path, const YAML::Node& node, const std::string& what) {
    const auto mark = node.Mark();
    throw std::runtime_error(path + ":" + std::to_string(mark.line + 1) + ":" +
                             std::to_string(mark.column + 1) + ": " + what);
}

// map[key] as T when present, else `fallback`; a value of the wrong type is an error.
template <typename T>
T optional_field(const std::string& path, const YAML::Node& map, const char* key,
                 const char* expected, T fallback = T()) {
    const YAML::Node node = map[key];
    if (!node || node.IsNull())
        return fallback;
    try {
        return node.as<T>();
    } catch (const YAML::Exception&) {
        fail(path, node, std::string("'") + key + "' must be " + expected);
    }
}

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

void read_device(const std::string& path, const YAML::Node& device, PatchMeasurement* m) {
    if (!device.IsMap())
        fail(path, device, "each entry of 'devices' must be an object");
    const YAML::Node variants = device["variants"];
    if (!variants || !variants.IsMap() || !variants["baseline"] || !variants["patched"])
        return;
    const YAML::Node base = variants["baseline"], patched = variants["patched"];
    m->driver = optional_field<std::string>(path, device, "driver", "a string");
    m->extends = optional_field<int>(path, device, "extends", "an integer");
    if (device["command"])
        m->command = optional_field<std::string>(path, device, "command", "a string");
    m->baseline_median_us = optional_field<double>(path, base, "median_us", "a number");
    m->patched_median_us = optional_field<double>(path, patched, "median_us", "a number");
    m->baseline_boots = optional_field<int>(path, base, "boots", "an integer");
    m->patched_boots = optional_field<int>(path, patched, "boots", "an integer");
    m->measured = m->baseline_median_us > 0 && m->patched_median_us > 0;
}

} // namespace

const PatchMeasurement* ValidationFigures::for_files(const std::vector<std::string>& files) const {
    for (const auto& p : patches)
        for (const auto& f : p.files)
            if (std::find(files.begin(), files.end(), f) != files.end())
                return &p;
    return nullptr;
}

ValidationFigures parse_report(const std::string& text, const std::string& path) {
    YAML::Node root;
    try {
        root = YAML::Load(text); // JSON is YAML; yaml-cpp is already a dependency
    } catch (const YAML::ParserException& e) {
        throw std::runtime_error(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                                 std::to_string(e.mark.column + 1) + ": " + e.msg);
    }
    if (!root.IsMap())
        fail(path, root, "a report must be a JSON object");
    if (optional_field<std::string>(path, root, "format", "a string") != "ksweep-validate-report")
        fail(path, root,
             "not a ksweep validate report (\"format\" is not "
             "\"ksweep-validate-report\")");
    ValidationFigures r;
    r.kernel_release = optional_field<std::string>(path, root, "kernel_release", "a string");
    r.config_hz = optional_field<int>(path, root, "config_hz", "an integer");
    r.passed = optional_field<bool>(path, root, "passed", "true or false");
    const YAML::Node patches = root["patches"];
    if (patches && !patches.IsSequence())
        fail(path, patches, "'patches' must be an array");
    for (const auto& node : patches) {
        if (!node.IsMap())
            fail(path, node, "each entry of 'patches' must be an object");
        PatchMeasurement m;
        m.files =
            optional_field<std::vector<std::string>>(path, node, "files", "an array of paths");
        m.subject = optional_field<std::string>(path, node, "subject", "a string");
        m.passed = optional_field<bool>(path, node, "passed", "true or false");
        if (const YAML::Node levels = node["levels"]; levels && levels.IsMap())
            for (const auto& kv : levels)
                m.levels.emplace_back(
                    kv.first.as<std::string>(),
                    optional_field<std::string>(path, kv.second, "status", "a string"));
        std::sort(m.levels.begin(), m.levels.end());
        if (const YAML::Node devices = node["devices"]; devices && devices.IsSequence())
            for (const auto& d : devices)
                if (!m.measured)
                    read_device(path, d, &m);
        r.patches.push_back(std::move(m));
    }
    return r;
}

ValidationFigures load_report(const std::string& path) {
    const auto text = read_file(path);
    if (!text)
        throw std::runtime_error(path + ": cannot open report");
    return parse_report(*text, path);
}

std::string describe(const PatchMeasurement& m, const ValidationFigures& report) {
    if (!m.measured)
        return "";
    std::string where = "Measured in QEMU";
    if (!report.kernel_release.empty())
        where += " with Linux " + report.kernel_release;
    if (report.config_hz > 0)
        where += " (HZ=" + std::to_string(report.config_hz) + ")";
    std::string s = where + " and an emulated device for " + m.driver + ": the median " +
                    m.command + " round trip through /dev/tpm0 went from " +
                    number(m.baseline_median_us / 1000) + " ms to " +
                    number(m.patched_median_us / 1000) + " ms";
    if (m.extends > 0 && m.baseline_boots > 0 && m.patched_boots > 0)
        s += " (" + std::to_string(m.extends) + " extends per boot, " +
             std::to_string(m.baseline_boots) + " and " + std::to_string(m.patched_boots) +
             " boots)";
    return s + ".";
}

std::string level_summary(const PatchMeasurement& m) {
    std::string out;
    for (const auto& [level, status] : m.levels)
        out += (out.empty() ? "" : ", ") + level + " " + status;
    return out;
}

} // namespace ksweep::series
