#include "series/report.h"

#include "core/file_io.h"
#include "core/json_fields.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace ksweep::series {

namespace {

using Fields = JsonFields;

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

void read_device(const std::string& path, const Json& device, const std::string& where,
                 PatchMeasurement* m) {
    if (!device.is_object())
        json_fail(path, where, "each entry of 'devices' must be an object");
    const auto variants = device.find("variants");
    if (variants == device.end() || !variants->is_object() || !variants->contains("baseline") ||
        !variants->contains("patched"))
        return;
    const Fields fields(path, device, where);
    const Fields base(path, (*variants)["baseline"], where + ".variants.baseline");
    const Fields patched(path, (*variants)["patched"], where + ".variants.patched");
    m->driver = fields.get<std::string>("driver");
    m->extends = fields.get<int>("extends");
    if (device.contains("command"))
        m->command = fields.get<std::string>("command");
    m->baseline_median_us = base.get<double>("median_us");
    m->patched_median_us = patched.get<double>("median_us");
    m->baseline_boots = base.get<int>("boots");
    m->patched_boots = patched.get<int>("boots");
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
    Json root;
    try {
        root = Json::parse(text);
    } catch (const Json::parse_error& e) {
        json_fail(path, "", e.what());
    }
    if (!root.is_object())
        json_fail(path, "", "a report must be a JSON object");
    const Fields fields(path, root, "");
    if (fields.get<std::string>("format") != "ksweep-validate-report")
        json_fail(path, "",
                  "not a ksweep validate report (\"format\" is not \"ksweep-validate-report\")");
    ValidationFigures r;
    r.kernel_release = fields.get<std::string>("kernel_release");
    r.config_hz = fields.get<int>("config_hz");
    if (auto started = root.find("started_at"); started != root.end() && started->is_string())
        r.started_at = started->get<std::string>();
    r.passed = fields.get<bool>("passed");
    const auto patches = root.find("patches");
    if (patches == root.end() || patches->is_null())
        return r;
    if (!patches->is_array())
        json_fail(path, "", "'patches' must be an array");
    for (size_t i = 0; i < patches->size(); ++i) {
        const Json& node = (*patches)[i];
        const std::string where = "patches[" + std::to_string(i) + "]";
        if (!node.is_object())
            json_fail(path, where, "each entry of 'patches' must be an object");
        const Fields patch(path, node, where);
        PatchMeasurement m;
        m.files = patch.tree_paths("files");
        m.subject = patch.get<std::string>("subject");
        m.passed = patch.get<bool>("passed");
        if (auto levels = node.find("levels"); levels != node.end() && levels->is_object())
            for (const auto& [level, result] : levels->items())
                m.levels.emplace_back(
                    level,
                    Fields(path, result, where + ".levels." + level).get<std::string>("status"));
        std::sort(m.levels.begin(), m.levels.end());
        if (auto devices = node.find("devices"); devices != node.end() && devices->is_array())
            for (size_t d = 0; d < devices->size() && !m.measured; ++d)
                read_device(path, (*devices)[d], where + ".devices[" + std::to_string(d) + "]", &m);
        r.patches.push_back(std::move(m));
    }
    return r;
}

ValidationFigures load_report(const std::string& path) {
    const auto text = read_file(path);
    if (!text)
        throw std::runtime_error(path + ": cannot open report");
    ValidationFigures r = parse_report(*text, path);
    r.source = path;
    return r;
}

std::string report_label(const ValidationFigures& report) {
    std::string name = report.source.substr(report.source.rfind('/') + 1);
    std::string what = name.empty() ? "its report" : "report " + name;
    if (!report.started_at.empty())
        what += " of " + report.started_at;
    return "ksweep validate (" + what + ")";
}

std::string describe(const PatchMeasurement& m, const ValidationFigures& report) {
    if (!m.measured)
        return "";
    std::string where = "Measured by " + report_label(report) + " in QEMU";
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
