// SARIF 2.1.0 (OASIS), the format code-scanning pages import: one run, one rule (the
// msleep_small rule), one result per warning located in the patched file, and a fix that
// replaces the call when the call sits on one line.
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

// Replaces "msleep(...)" by the suggestion; SARIF's endColumn is one past the last character.
void write_fix(llvm::json::OStream& json, const Warning& w) {
    const Finding& f = w.finding;
    json.object([&] {
        json.attributeObject("description", [&] { json.attribute("text", "use " + w.suggestion); });
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
                                             [&] { json.attribute("text", w.suggestion); });
                    });
                });
            });
        });
    });
}

void write_driver(llvm::json::OStream& json, const Rule& rule, const RunInfo& run) {
    json.attributeObject("driver", [&] {
        json.attribute("name", "ksweep");
        json.attribute("version", run.version);
        json.attribute("informationUri", kHelpUri);
        json.attributeArray("rules", [&] {
            json.object([&] {
                json.attribute("id", rule.name);
                json.attribute("name", kWarningType);
                json.attributeObject("shortDescription",
                                     [&] { json.attribute("text", rule.summary); });
                json.attributeObject("fullDescription", [&] {
                    json.attribute("text",
                                   "msleep() is a timer-wheel sleep rounded up to whole jiffies; "
                                   "below " +
                                       std::to_string(rule.threshold_ms) +
                                       " ms it sleeps much longer than asked. Use "
                                       "usleep_range().");
                });
                json.attribute("helpUri", kHelpUri);
                json.attributeObject("defaultConfiguration",
                                     [&] { json.attribute("level", "warning"); });
            });
        });
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
                        for (const auto& w : input.warnings)
                            json.object([&] {
                                json.attribute("ruleId", rule.name);
                                json.attribute("ruleIndex", 0);
                                json.attribute("level", "warning");
                                json.attributeObject("message",
                                                     [&] { json.attribute("text", w.message); });
                                json.attributeArray("locations",
                                                    [&] { write_location(json, w.finding); });
                                if (w.finding.call.find('\n') == std::string::npos)
                                    json.attributeArray("fixes", [&] { write_fix(json, w); });
                            });
                });
            });
        });
    });
    os << "\n";
    return os.str();
}

} // namespace ksweep::check
