// SARIF 2.1.0 (OASIS), the format code-scanning pages import: one run with two rules, the
// small sleep (level warning) and the call whose constant could not be evaluated (kind
// "open": the tool could not tell whether it passes; SARIF §3.27.9 wants level "none" then).
// A warning carries a fix replacing the call when the call sits on one line and `ksweep fix`
// would change nothing else for it (no new slack constant, no macro to convert).
#include "check/check_types.h"
#include "check/report_format.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace ksweep::check {

namespace {

constexpr const char* kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kHelpUri = "https://docs.kernel.org/timers/timers-howto.html";

void write_artifact(llvm::json::OStream& json, const Finding& f) {
    json.attributeObject("artifactLocation", [&] {
        json.attribute("uri", f.file);
        json.attribute("uriBaseId", "SRCROOT");
    });
}

void write_location(llvm::json::OStream& json, const Finding& f) {
    json.object([&] {
        json.attributeObject("physicalLocation", [&] {
            write_artifact(json, f);
            json.attributeObject("region", [&] {
                json.attribute("startLine", f.line);
                json.attribute("startColumn", f.column);
            });
        });
    });
}

bool has_whole_fix(const Warning& w) {
    return !w.via_macro && !w.advice.replacement.empty() && w.advice.slack_define.empty() &&
           !w.advice.how.starts_with("macro ") && w.finding.call.find('\n') == std::string::npos;
}

// Replaces "msleep(...)" by the fix's call; SARIF's endColumn is one past the last character.
void write_fix(llvm::json::OStream& json, const Warning& w) {
    const Finding& f = w.finding;
    json.object([&] {
        json.attributeObject("description",
                             [&] { json.attribute("text", "use " + w.advice.replacement); });
        json.attributeArray("artifactChanges", [&] {
            json.object([&] {
                write_artifact(json, f);
                json.attributeArray("replacements", [&] {
                    json.object([&] {
                        json.attributeObject("deletedRegion", [&] {
                            json.attribute("startLine", f.line);
                            json.attribute("startColumn", f.column);
                            json.attribute("endLine", f.line);
                            json.attribute("endColumn", f.column + f.call.size());
                        });
                        json.attributeObject("insertedContent",
                                             [&] { json.attribute("text", w.advice.replacement); });
                    });
                });
            });
        });
    });
}

void write_rule(llvm::json::OStream& json, const std::string& id, const std::string& name,
                const std::string& summary, const std::string& description, const char* level) {
    json.object([&] {
        json.attribute("id", id);
        json.attribute("name", name);
        json.attributeObject("shortDescription", [&] { json.attribute("text", summary); });
        json.attributeObject("fullDescription", [&] { json.attribute("text", description); });
        json.attribute("helpUri", kHelpUri);
        json.attributeObject("defaultConfiguration", [&] { json.attribute("level", level); });
    });
}

void write_driver(llvm::json::OStream& json, const Rule& rule, const RunInfo& run) {
    json.attributeObject("driver", [&] {
        json.attribute("name", "ksweep");
        json.attribute("version", run.version);
        json.attribute("informationUri", kHelpUri);
        json.attributeArray("rules", [&] {
            write_rule(json, rule.name, warning_type(rule), rule.summary,
                       "msleep() is a timer-wheel sleep rounded up to whole jiffies; below " +
                           std::to_string(rule.threshold_ms) +
                           " ms it sleeps much longer than asked. Use usleep_range().",
                       "warning");
            write_rule(json, rule.name + "/unresolved", unresolved_type(rule),
                       "a " + rule_calls(rule) + " argument ksweep could not evaluate",
                       "The argument names a macro or enumerator that could not be evaluated "
                       "(the semantic parse failed, a header is missing, no build dir): it may "
                       "be a small sleep. The message says why and what would resolve it.",
                       "none");
        });
    });
}

void write_result(llvm::json::OStream& json, const Rule& rule, const Warning& w, bool open) {
    json.object([&] {
        json.attribute("ruleId", open ? rule.name + "/unresolved" : rule.name);
        json.attribute("ruleIndex", open ? 1 : 0);
        if (open)
            json.attribute("kind", "open");
        json.attribute("level", open ? "none" : "warning");
        json.attributeObject("message", [&] { json.attribute("text", w.message); });
        json.attributeArray("locations", [&] { write_location(json, w.finding); });
        if (!open && has_whole_fix(w))
            json.attributeArray("fixes", [&] { write_fix(json, w); });
    });
}

} // namespace

std::string format_sarif(const std::vector<InputReport>& reports, const Rule& rule,
                         const RunInfo& run) {
    std::string out;
    llvm::raw_string_ostream os(out);
    llvm::json::OStream json(os, 2);
    json.object([&] {
        json.attribute("$schema", kSchema);
        json.attribute("version", "2.1.0");
        json.attributeArray("runs", [&] {
            json.object([&] {
                json.attributeObject("tool", [&] { write_driver(json, rule, run); });
                json.attributeObject("originalUriBaseIds", [&] {
                    json.attributeObject("SRCROOT", [&] {
                        json.attribute("uri",
                                       "file://" + run.tree + (run.tree.ends_with('/') ? "" : "/"));
                    });
                });
                json.attributeArray("results", [&] {
                    for (const auto& input : reports)
                        for (const Warning* w : in_input_order(input))
                            write_result(json, rule, *w, w->level == "CHECK");
                });
            });
        });
    });
    os << "\n";
    return os.str();
}

} // namespace ksweep::check
