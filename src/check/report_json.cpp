// check's JSON: every warning with everything the scanner knows about the call, grouped by
// input (patch file, stdin, or commit), plus totals. Stable keys; one document per run.
#include "check/json_writer.h"
#include "check/report_format.h"
#include "core/kernel_tree.h"

namespace ksweep::check {

namespace {

void write_warning(JsonWriter& json, const Warning& w) {
    const Finding& f = w.finding;
    json.begin_object()
        .field("file", f.file)
        .field("line", f.line)
        .field("column", f.column)
        .field("patch_line", w.input_line)
        .field("subject", w.patch_subject)
        .field("function", f.function)
        .field("call", f.call)
        .field("argument", f.argument);
    json.key("value_ms");
    if (f.value_ms)
        json.value(*f.value_ms);
    else
        json.null();
    json.field("resolution", std::string(to_string(f.resolution)))
        .field("constant", f.constant)
        .field("defined_at", f.defined_at)
        .field("engine", std::string(to_string(f.engine)))
        .field("predicted_sleep_ms", f.predicted_sleep_ms)
        .field("suggestion", w.suggestion)
        .field("message", w.message)
        .field("added_line", w.added_line)
        .end_object();
}

} // namespace

std::string format_json(const std::vector<InputReport>& reports, const Rule& rule,
                        const RunInfo& run) {
    JsonWriter json;
    size_t warnings = 0;
    unsigned lines = 0;
    json.begin_object()
        .field("tool", "ksweep")
        .field("version", run.version)
        .field("rule", rule.name)
        .field("type", kWarningType)
        .field("tree", run.tree)
        .field("kernel", to_string(run.kernel))
        .field("hz", run.hz);
    json.key("inputs").begin_array();
    for (const auto& input : reports) {
        json.begin_object()
            .field("input", input.filename)
            .field("name", input.vname)
            .field("patches", static_cast<long long>(input.patches))
            .field("lines_checked", input.lines_checked);
        json.key("warnings").begin_array();
        for (const auto& w : input.warnings)
            write_warning(json, w);
        json.end_array().end_object();
        warnings += input.warnings.size();
        lines += input.lines_checked;
    }
    json.end_array();
    json.key("total")
        .begin_object()
        .field("errors", 0)
        .field("warnings", static_cast<long long>(warnings))
        .field("lines_checked", lines)
        .end_object();
    json.end_object();
    return json.str();
}

} // namespace ksweep::check
