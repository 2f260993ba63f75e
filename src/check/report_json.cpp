// check's JSON: every finding with everything the scanner knows about the call and what
// `ksweep fix` would write for it, grouped by input (patch file, stdin, or commit), plus
// totals. Keys keep this order; one document per run.
#include "check/check_types.h"
#include "check/report_format.h"
#include "core/json.h"
#include "core/loop_json.h"
#include "kbuild/kernel_tree.h"

namespace ksweep::check {

using namespace ksweep::kbuild;

namespace {

OrderedJson finding_json(const Warning& w) {
    const Finding& f = w.finding;
    return OrderedJson{
        {"level", w.level},
        {"type", w.type},
        {"file", f.file},
        {"line", f.line},
        {"column", f.column},
        {"patch_line", w.input_line},
        {"line_added", w.line_added},
        {"subject", w.patch_subject},
        {"function", f.function},
        {"call", f.call},
        {"via_macro", w.via_macro ? OrderedJson(f.constant) : OrderedJson(nullptr)},
        {"argument", f.argument},
        {"value_ms", f.value ? OrderedJson(*f.value) : OrderedJson(nullptr)},
        {"resolution", to_string(f.resolution)},
        {"constant", f.constant},
        {"defined_at", f.defined_at},
        {"engine", to_string(f.engine)},
        {"predicted_sleep_ms", json_number<OrderedJson>(f.predicted_sleep_ms)},
        {"loop", loop_json<OrderedJson>(f.loop)},
        {"suggestion", w.advice.replacement},
        {"fix", OrderedJson{{"replacement", w.advice.replacement},
                            {"slack_define", w.advice.slack_define},
                            {"how", w.advice.how},
                            {"refused", w.advice.refused}}},
        {"message", w.message},
        {"added_line", w.added_line},
    };
}

OrderedJson findings_json(const std::vector<Warning>& warnings) {
    OrderedJson out = OrderedJson::array();
    for (const auto& w : warnings)
        out.push_back(finding_json(w));
    return out;
}

} // namespace

std::string format_json(const std::vector<InputReport>& reports, const std::vector<Rule>& rules,
                        const RunInfo& run) {
    OrderedJson rule_list = OrderedJson::array();
    for (const Rule& rule : rules)
        rule_list.push_back(OrderedJson{{"rule", rule.name},
                                        {"type", warning_type(rule)},
                                        {"unresolved_type", unresolved_type(rule)},
                                        {"loop_budget_type", loop_budget_type(rule)}});
    size_t warnings = 0, checks = 0, patches = 0;
    unsigned lines = 0;
    OrderedJson inputs = OrderedJson::array();
    for (const auto& input : reports) {
        inputs.push_back(OrderedJson{
            {"input", input.filename},
            {"name", input.vname},
            {"patches", input.patches},
            {"lines_checked", input.lines_checked},
            {"warnings", findings_json(input.warnings)},
            {"checks", findings_json(input.unresolved)},
            {"notes", input.notes},
        });
        warnings += input.warnings.size();
        checks += input.unresolved.size();
        patches += input.patches;
        lines += input.lines_checked;
    }
    const OrderedJson document{
        {"tool", "ksweep"},
        {"version", run.version},
        {"rules", std::move(rule_list)},
        {"tree", run.tree},
        {"kernel", to_string(run.kernel)},
        {"hz", run.hz},
        {"inputs", std::move(inputs)},
        {"total", OrderedJson{{"errors", 0},
                              {"warnings", warnings},
                              {"checks", checks},
                              {"patches", patches},
                              {"lines_checked", lines}}},
    };
    return json_text(document);
}

} // namespace ksweep::check
