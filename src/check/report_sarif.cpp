// SARIF 2.1.0 (OASIS), the format code-scanning pages import: one run with two rules, the
// small sleep (level warning) and the call whose constant could not be evaluated (kind
// "open": the tool could not tell whether it passes; SARIF §3.27.9 wants level "none" then).
// A warning carries a fix replacing the call when the call sits on one line and `ksweep fix`
// would change nothing else for it (no new slack constant, no macro to convert).
#include "check/check_types.h"
#include "check/report_format.h"
#include "core/json.h"

namespace ksweep::check {

namespace {

constexpr const char* kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr const char* kHelpUri = "https://docs.kernel.org/timers/timers-howto.html";

OrderedJson artifact_location(const Finding& f) {
    return OrderedJson{{"uri", f.file}, {"uriBaseId", "%SRCROOT%"}};
}

OrderedJson location(const Finding& f) {
    return OrderedJson{
        {"physicalLocation",
         OrderedJson{{"artifactLocation", artifact_location(f)},
                     {"region", OrderedJson{{"startLine", f.line}, {"startColumn", f.column}}}}}};
}

bool has_whole_fix(const Warning& w) {
    return !w.via_macro && !w.advice.replacement.empty() && w.advice.slack_define.empty() &&
           !w.advice.how.starts_with("macro ") && w.finding.call.find('\n') == std::string::npos;
}

OrderedJson text(const std::string& s) {
    return OrderedJson{{"text", s}};
}

// Replaces "msleep(...)" by the fix's call; SARIF's endColumn is one past the last character.
OrderedJson fix(const Warning& w) {
    const Finding& f = w.finding;
    OrderedJson deleted{{"startLine", f.line},
                        {"startColumn", f.column},
                        {"endLine", f.line},
                        {"endColumn", f.column + f.call.size()}};
    OrderedJson replacement{{"deletedRegion", std::move(deleted)},
                            {"insertedContent", text(w.advice.replacement)}};
    OrderedJson change{{"artifactLocation", artifact_location(f)},
                       {"replacements", OrderedJson::array({std::move(replacement)})}};
    return OrderedJson{{"description", text("use " + w.advice.replacement)},
                       {"artifactChanges", OrderedJson::array({std::move(change)})}};
}

OrderedJson rule_json(const std::string& id, const std::string& name, const std::string& summary,
                      const std::string& description, const char* level) {
    return OrderedJson{{"id", id},
                       {"name", name},
                       {"shortDescription", text(summary)},
                       {"fullDescription", text(description)},
                       {"helpUri", kHelpUri},
                       {"defaultConfiguration", OrderedJson{{"level", level}}}};
}

// Three reporting descriptors per rule: its warning, its unresolved check, and the warning for
// a loop whose budget a patch shortens.
OrderedJson driver(const std::vector<Rule>& rule_list, const RunInfo& run) {
    OrderedJson rules = OrderedJson::array();
    for (const Rule& rule : rule_list) {
        rules.push_back(rule_json(rule.name, warning_type(rule), rule.summary,
                                  rule_calls(rule) +
                                      " is a timer-wheel sleep rounded up to whole jiffies; "
                                      "when it is actionable (" +
                                      rule.threshold_text() +
                                      ") it sleeps much longer than asked. Use usleep_range().",
                                  "warning"));
        rules.push_back(
            rule_json(rule.name + "/unresolved", unresolved_type(rule),
                      "a " + rule_calls(rule) + " argument ksweep could not evaluate",
                      "The argument names a macro or enumerator that could not be evaluated "
                      "(the semantic parse failed, a header is missing, no build dir): it may "
                      "be a small sleep. The message says why and what would resolve it.",
                      "none"));
        rules.push_back(rule_json(
            rule.name + "/loop-budget", loop_budget_type(rule),
            "a shorter sleep in a loop that gives up after a number of tries",
            "The patch replaces a " + rule_calls(rule) +
                " in a loop that gives up after a number of tries with a shorter hrtimer sleep: "
                "the loop's time budget, the driver's timeout, shrinks. The message gives it "
                "before and after at HZ 100, 250 and 1000.",
            "warning"));
    }
    return OrderedJson{{"name", "ksweep"},
                       {"version", run.version},
                       {"informationUri", kHelpUri},
                       {"rules", std::move(rules)}};
}

OrderedJson result(const std::vector<Rule>& rules, const Warning& w, bool open) {
    size_t index = 0;
    while (index + 1 < rules.size() && rules[index].name != w.finding.rule)
        ++index;
    const std::string& name = rules[index].name;
    const bool loop = w.type == loop_budget_type(rules[index]);
    OrderedJson out;
    out["ruleId"] = open ? name + "/unresolved" : loop ? name + "/loop-budget" : name;
    out["ruleIndex"] = 3 * index + (open ? 1 : loop ? 2 : 0);
    if (open)
        out["kind"] = "open";
    out["level"] = open ? "none" : "warning";
    out["message"] = text(w.message);
    out["locations"] = OrderedJson::array({location(w.finding)});
    if (!open && !loop && has_whole_fix(w))
        out["fixes"] = OrderedJson::array({fix(w)});
    return out;
}

} // namespace

std::string format_sarif(const std::vector<InputReport>& reports, const std::vector<Rule>& rules,
                         const RunInfo& run) {
    OrderedJson results = OrderedJson::array();
    for (const auto& input : reports)
        for (const Warning* w : in_input_order(input))
            results.push_back(result(rules, *w, w->level == "CHECK"));
    // No uri: the root is wherever the tree is checked out, never this machine's path (a
    // base id without one is left for the consumer to resolve, SARIF 3.14.14); GitHub's code
    // scanning resolves %SRCROOT% to the repository's checkout.
    OrderedJson src_root{
        {"description", OrderedJson{{"text", "the root of the kernel tree the patches were "
                                             "checked against"}}}};
    OrderedJson one_run{{"tool", OrderedJson{{"driver", driver(rules, run)}}},
                        {"originalUriBaseIds", OrderedJson{{"%SRCROOT%", std::move(src_root)}}},
                        {"results", std::move(results)}};
    const OrderedJson document{{"$schema", kSchema},
                               {"version", "2.1.0"},
                               {"runs", OrderedJson::array({std::move(one_run)})}};
    return json_text(document);
}

} // namespace ksweep::check
