// check's JSON: every finding with everything the scanner knows about the call and what
// `ksweep fix` would write for it, grouped by input (patch file, stdin, or commit), plus
// totals. Keys keep this order; one document per run.
#include "check/check_types.h"
#include "check/report_format.h"
#include "kbuild/kernel_tree.h"

#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

namespace ksweep::check {

using namespace ksweep::kbuild;

namespace {

void write_finding(llvm::json::OStream& json, const Warning& w) {
    const Finding& f = w.finding;
    json.object([&] {
        json.attribute("level", w.level);
        json.attribute("type", w.type);
        json.attribute("file", f.file);
        json.attribute("line", f.line);
        json.attribute("column", f.column);
        json.attribute("patch_line", w.input_line);
        json.attribute("line_added", w.line_added);
        json.attribute("subject", w.patch_subject);
        json.attribute("function", f.function);
        json.attribute("call", f.call);
        json.attribute("via_macro", w.via_macro ? llvm::json::Value(f.constant) : nullptr);
        json.attribute("argument", f.argument);
        json.attribute("value_ms", f.value_ms ? llvm::json::Value(*f.value_ms) : nullptr);
        json.attribute("resolution", std::string(to_string(f.resolution)));
        json.attribute("constant", f.constant);
        json.attribute("defined_at", f.defined_at);
        json.attribute("engine", std::string(to_string(f.engine)));
        json.attribute("predicted_sleep_ms", f.predicted_sleep_ms);
        json.attribute("suggestion", w.advice.replacement);
        json.attributeObject("fix", [&] {
            json.attribute("replacement", w.advice.replacement);
            json.attribute("slack_define", w.advice.slack_define);
            json.attribute("how", w.advice.how);
            json.attribute("refused", w.advice.refused);
        });
        json.attribute("message", w.message);
        json.attribute("added_line", w.added_line);
    });
}

} // namespace

std::string format_json(const std::vector<InputReport>& reports, const Rule& rule,
                        const RunInfo& run) {
    std::string out;
    llvm::raw_string_ostream os(out);
    llvm::json::OStream json(os, 2);
    size_t warnings = 0, checks = 0, patches = 0;
    unsigned lines = 0;
    json.object([&] {
        json.attribute("tool", "ksweep");
        json.attribute("version", run.version);
        json.attribute("rule", rule.name);
        json.attribute("type", warning_type(rule));
        json.attribute("unresolved_type", unresolved_type(rule));
        json.attribute("tree", run.tree);
        json.attribute("kernel", to_string(run.kernel));
        json.attribute("hz", run.hz);
        json.attributeArray("inputs", [&] {
            for (const auto& input : reports) {
                json.object([&] {
                    json.attribute("input", input.filename);
                    json.attribute("name", input.vname);
                    json.attribute("patches", static_cast<int64_t>(input.patches));
                    json.attribute("lines_checked", input.lines_checked);
                    json.attributeArray("warnings", [&] {
                        for (const auto& w : input.warnings)
                            write_finding(json, w);
                    });
                    json.attributeArray("checks", [&] {
                        for (const auto& w : input.unresolved)
                            write_finding(json, w);
                    });
                    json.attributeArray("notes", [&] {
                        for (const auto& note : input.notes)
                            json.value(note);
                    });
                });
                warnings += input.warnings.size();
                checks += input.unresolved.size();
                patches += input.patches;
                lines += input.lines_checked;
            }
        });
        json.attributeObject("total", [&] {
            json.attribute("errors", 0);
            json.attribute("warnings", static_cast<int64_t>(warnings));
            json.attribute("checks", static_cast<int64_t>(checks));
            json.attribute("patches", static_cast<int64_t>(patches));
            json.attribute("lines_checked", lines);
        });
    });
    os << "\n";
    return os.str();
}

} // namespace ksweep::check
