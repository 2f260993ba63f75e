// The JSON report, described field by field in docs/report-json.md. The layout is its own
// (one line per level, boot and module; samples eight to a line) and numbers keep three
// decimals, so it is laid out here; every string goes through the JSON library.
#include "core/json.h"
#include "validate/report_render.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace ksweep::validate {

using namespace ksweep::guest;

namespace {

// A JSON string; bytes that are not UTF-8 (a compiler's or checkpatch's output may have
// them) become U+FFFD rather than invalid JSON.
std::string quote(const std::string& s) {
    return json_quote(s);
}

std::string number(double v) {
    if (!std::isfinite(v))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    std::string s = buf;
    // Trim trailing zeros: 12.500 -> 12.5, 3.000 -> 3.
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.')
        s.pop_back();
    return s;
}

// A p-value keeps its magnitude: 3 significant digits, an exponent when small (4.1e-12), where
// number()'s three decimals would print every strong result as 0.
std::string probability(double p) {
    if (!std::isfinite(p))
        return "null";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", p);
    return buf;
}

std::string string_array(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + quote(items[i]);
    return out + "]";
}

std::string counts_object(const std::map<std::string, unsigned long long>& counts) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, count] : counts) {
        out += (first ? "" : ", ") + quote(key) + ": " + std::to_string(count);
        first = false;
    }
    return out + "}";
}

std::string strings_object(const std::map<std::string, std::string>& values) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, value] : values) {
        out += (first ? "" : ", ") + quote(key) + ": " + quote(value);
        first = false;
    }
    return out + "}";
}

void write_level(std::ostringstream& js, int number_1based, const LevelResult& level, bool last) {
    js << "        \"L" << number_1based << "\": {\"status\": " << quote(to_string(level.status))
       << ", \"message\": " << quote(level.message) << ", \"seconds\": " << number(level.seconds)
       << ", \"details\": " << string_array(level.details) << "}" << (last ? "\n" : ",\n");
}

void write_variant(std::ostringstream& js, const VariantSummary& v, bool last) {
    const ExtendSummary& s = v.summary;
    js << "          " << quote(v.variant) << ": {\"boots\": " << v.boots
       << ", \"failed_boots\": " << v.failed_boots << ", \"count\": " << s.count
       << ", \"median_us\": " << number(s.median_us) << ", \"p95_us\": " << number(s.p95_us)
       << ", \"min_us\": " << number(s.min_us) << ", \"max_us\": " << number(s.max_us)
       << ", \"total_ms\": " << number(s.total_ms)
       << ", \"violations\": " << counts_object(v.violations) << "}" << (last ? "\n" : ",\n");
}

void write_boot(std::ostringstream& js, const BootRun& b, bool last) {
    js << "            {\"variant\": " << quote(b.variant) << ", \"boot\": " << b.boot
       << ", \"ok\": " << (b.ok ? "true" : "false")
       << ", \"pcr_passed\": " << (b.pcr_passed ? "true" : "false")
       << ", \"message\": " << quote(b.message) << ", \"wall_seconds\": " << number(b.wall_seconds)
       << ", \"run_dir\": " << quote(b.run_dir) << ", \"nice\": " << b.nice
       << ", \"measured_hz\": " << (b.measured_hz > 0 ? std::to_string(b.measured_hz) : "null")
       << ", \"host_load\": " << (b.host_load < 0 ? "null" : number(b.host_load))
       << ", \"violations\": " << counts_object(b.violations)
       << ", \"violations_measured\": " << (b.violations_measured ? "true" : "false") << ",\n"
       << "             \"samples\": [";
    for (size_t i = 0; i < b.samples.size(); ++i) {
        const ExtendSample& s = b.samples[i];
        js << (i ? ", " : "") << (i % 8 == 0 ? "\n               " : "") << "{\"i\": " << s.index
           << ", \"ns\": " << s.ns << ", \"rc\": " << s.rc << "}";
    }
    js << "]}" << (last ? "\n" : ",\n");
}

void write_device(std::ostringstream& js, const DeviceRun& run, bool last) {
    js << "        {\"driver\": " << quote(run.driver) << ", \"hz\": " << run.hz
       << ", \"interrupt\": " << (run.interrupt.empty() ? "null" : quote(run.interrupt))
       << ", \"guest_release\": " << quote(run.guest_release)
       << ", \"guest_build_dir\": " << quote(run.guest_build_dir)
       << ", \"command\": " << quote(run.command) << ", \"pcr_bank\": " << quote(run.pcr_bank)
       << ", \"profile\": " << quote(run.profile)
       << ", \"requirements\": " << strings_object(run.requirements)
       << ", \"extends\": " << run.extends << ", \"median_ratio\": " << number(run.median_ratio)
       << ", \"median_ratio_low\": "
       << (run.median_ratio_high > 0 ? number(run.median_ratio_low) : "null")
       << ", \"median_ratio_high\": "
       << (run.median_ratio_high > 0 ? number(run.median_ratio_high) : "null")
       << ", \"mann_whitney_p\": "
       << (run.mann_whitney_p < 0 ? "null" : probability(run.mann_whitney_p))
       << ",\n         \"variants\": {\n";
    write_variant(js, run.baseline, false);
    write_variant(js, run.patched, true);
    js << "         },\n         \"boots\": [\n";
    for (size_t i = 0; i < run.boots.size(); ++i)
        write_boot(js, run.boots[i], i + 1 == run.boots.size());
    js << "         ]}" << (last ? "\n" : ",\n");
}

void write_patch(std::ostringstream& js, const PatchResult& p, bool last) {
    js << "    {\"number\": " << p.number << ", \"path\": " << quote(p.path)
       << ", \"subject\": " << quote(p.subject)
       << ", \"passed\": " << (p.passed() ? "true" : "false")
       << ",\n     \"files\": " << string_array(p.files) << ",\n     \"levels\": {\n";
    for (size_t l = 0; l < p.levels.size(); ++l)
        write_level(js, static_cast<int>(l + 1), p.levels[l], l + 1 == p.levels.size());
    js << "     },\n     \"checkpatch\": {\"errors\": " << p.checkpatch.errors
       << ", \"warnings\": " << p.checkpatch.warnings << ", \"checks\": " << p.checkpatch.checks
       << ", \"messages\": " << string_array(p.checkpatch.messages) << "},\n     \"modules\": [";
    for (size_t i = 0; i < p.modules.size(); ++i) {
        const ModuleOutcome& m = p.modules[i];
        js << (i ? "," : "") << "\n        {\"name\": " << quote(m.name)
           << ", \"directory\": " << quote(m.directory) << ", \"config\": " << quote(m.config)
           << ", \"config_value\": " << quote(m.config_value)
           << ", \"status\": " << quote(to_string(m.status))
           << ", \"message\": " << quote(m.message)
           << ", \"new_warnings\": " << string_array(m.new_warnings) << "}";
    }
    js << "],\n     \"devices\": [\n";
    for (size_t i = 0; i < p.devices.size(); ++i)
        write_device(js, p.devices[i], i + 1 == p.devices.size());
    js << "     ]}" << (last ? "\n" : ",\n");
}

} // namespace

std::string render_json(const ValidationReport& r) {
    std::ostringstream js;
    js << "{\n  \"format\": \"ksweep-validate-report\", \"format_version\": 1,\n"
       << "  \"tool\": " << quote(r.tool_version) << ",\n"
       << "  \"passed\": " << (r.passed() ? "true" : "false") << ",\n"
       << "  \"tree\": " << quote(r.tree) << ",\n"
       << "  \"series\": " << quote(r.series) << ",\n"
       << "  \"base_commit\": " << quote(r.base_commit) << ",\n"
       << "  \"headers_dir\": " << quote(r.headers_dir) << ",\n"
       << "  \"build_dir_note\": " << quote(r.build_dir_note) << ",\n"
       << "  \"kernel_release\": " << quote(r.kernel_release) << ",\n"
       << "  \"config_hz\": " << r.config_hz << ",\n"
       << "  \"guest_hz\": [";
    for (size_t i = 0; i < r.guest_hz.size(); ++i)
        js << (i ? ", " : "") << r.guest_hz[i];
    js << "],\n  \"guest_hz_source\": " << quote(r.guest_hz_source) << ",\n"
       << "  \"levels\": [";
    for (size_t i = 0; i < r.levels.size(); ++i)
        js << (i ? ", " : "") << r.levels[i];
    js << "],\n  \"boots\": " << r.boots << ",\n  \"extends\": " << r.extends << ",\n"
       << "  \"profile\": " << quote(r.profile) << ",\n"
       << "  \"started_at\": " << quote(r.started_at) << ",\n"
       << "  \"wall_seconds\": " << number(r.wall_seconds) << ",\n"
       << "  \"errors\": " << string_array(r.errors) << ",\n"
       << "  \"patches\": [\n";
    for (size_t i = 0; i < r.patches.size(); ++i)
        write_patch(js, r.patches[i], i + 1 == r.patches.size());
    js << "  ]\n}\n";
    return js.str();
}

} // namespace ksweep::validate
