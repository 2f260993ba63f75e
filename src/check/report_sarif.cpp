// SARIF 2.1.0 (OASIS), the format code-scanning pages import: one run, one rule (the
// msleep_small rule), one result per warning located in the patched file, and a fix that
// replaces the call when the call sits on one line.
#include "check/json_writer.h"
#include "check/report_format.h"

namespace ksweep::check {

namespace {

constexpr const char* kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kHelpUri = "https://docs.kernel.org/timers/timers-howto.html";

void write_location(JsonWriter& json, const Finding& f) {
    json.begin_object().key("physicalLocation").begin_object();
    json.key("artifactLocation")
        .begin_object()
        .field("uri", f.file)
        .field("uriBaseId", "SRCROOT")
        .end_object();
    json.key("region")
        .begin_object()
        .field("startLine", f.line)
        .field("startColumn", f.column)
        .end_object();
    json.end_object().end_object();
}

// Replaces "msleep(...)" by the suggestion; SARIF's endColumn is one past the last character.
void write_fix(JsonWriter& json, const Warning& w) {
    const Finding& f = w.finding;
    json.begin_object();
    json.key("description").begin_object().field("text", "use " + w.suggestion).end_object();
    json.key("artifactChanges").begin_array().begin_object();
    json.key("artifactLocation")
        .begin_object()
        .field("uri", f.file)
        .field("uriBaseId", "SRCROOT")
        .end_object();
    json.key("replacements").begin_array().begin_object();
    json.key("deletedRegion")
        .begin_object()
        .field("startLine", f.line)
        .field("startColumn", f.column)
        .field("endLine", f.line)
        .field("endColumn", f.column + static_cast<unsigned>(f.call.size()))
        .end_object();
    json.key("insertedContent").begin_object().field("text", w.suggestion).end_object();
    json.end_object().end_array();
    json.end_object().end_array();
    json.end_object();
}

} // namespace

std::string format_sarif(const std::vector<InputReport>& reports, const Rule& rule,
                         const RunInfo& run) {
    JsonWriter json;
    json.begin_object().field("$schema", kSchema).field("version", "2.1.0");
    json.key("runs").begin_array().begin_object();

    json.key("tool").begin_object().key("driver").begin_object();
    json.field("name", "ksweep").field("version", run.version).field("informationUri", kHelpUri);
    json.key("rules").begin_array().begin_object();
    json.field("id", rule.name).field("name", kWarningType);
    json.key("shortDescription").begin_object().field("text", rule.summary).end_object();
    json.key("fullDescription")
        .begin_object()
        .field("text", "msleep() is a timer-wheel sleep rounded up to whole jiffies; below " +
                           std::to_string(rule.threshold_ms) +
                           " ms it sleeps much longer than asked. Use usleep_range().")
        .end_object();
    json.field("helpUri", kHelpUri);
    json.key("defaultConfiguration").begin_object().field("level", "warning").end_object();
    json.end_object().end_array();
    json.end_object().end_object();

    json.key("originalUriBaseIds")
        .begin_object()
        .key("SRCROOT")
        .begin_object()
        .field("uri", "file://" + run.tree + (run.tree.ends_with('/') ? "" : "/"))
        .end_object()
        .end_object();

    json.key("results").begin_array();
    for (const auto& input : reports) {
        for (const auto& w : input.warnings) {
            json.begin_object()
                .field("ruleId", rule.name)
                .field("ruleIndex", 0)
                .field("level", "warning");
            json.key("message").begin_object().field("text", w.message).end_object();
            json.key("locations").begin_array();
            write_location(json, w.finding);
            json.end_array();
            if (w.finding.call.find('\n') == std::string::npos) {
                json.key("fixes").begin_array();
                write_fix(json, w);
                json.end_array();
            }
            json.end_object();
        }
    }
    json.end_array();
    json.end_object().end_array().end_object();
    return json.str();
}

} // namespace ksweep::check
