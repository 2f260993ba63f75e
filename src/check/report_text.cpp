// checkpatch.pl's output, reproduced from its report() and process(): a finding is
//   WARNING: <message>             (WARNING:<TYPE>: with --show-types; CHECK: for a check)
//   #<patch line>: FILE: <file>:<line>:
//   +<added line>                  (' ' instead of '+' for a line the patch does not add)
//   <blank>
// --showfile drops the "#N: FILE:" line and puts "<file>:<line>: " before the level; --terse
// keeps only the first line, prefixed "<input>:<patch line>: " (or "<file>:<line>: " with
// --showfile). The summary counts "lines checked" as checkpatch does (see unified_diff.cpp),
// and "checks" as checkpatch --strict does, when the run has any.
#include "check/check_types.h"
#include "check/report_format.h"

#include <algorithm>

namespace ksweep::check {

namespace {

std::string level_and_message(const Warning& w, const TextStyle& style) {
    std::string out = w.level + ":";
    if (style.show_types)
        out += w.type + ":";
    return out + " " + w.message;
}

std::string format_finding(const InputReport& input, const Warning& w, const TextStyle& style) {
    std::string file_line = w.finding.file + ":" + std::to_string(w.finding.line) + ":";
    std::string first;
    if (style.showfile)
        first = file_line + " ";
    else if (style.terse)
        first = input.filename + ":" + std::to_string(w.input_line) + ": ";
    first += level_and_message(w, style) + "\n";
    if (style.terse)
        return first;
    const std::string line = (w.line_added ? "+" : " ") + w.added_line + "\n\n";
    if (style.showfile)
        return first + line;
    return first + "#" + std::to_string(w.input_line) + ": FILE: " + file_line + "\n" + line;
}

} // namespace

std::vector<const Warning*> in_input_order(const InputReport& report) {
    std::vector<const Warning*> all;
    for (const auto* list : {&report.warnings, &report.unresolved})
        for (const Warning& w : *list)
            all.push_back(&w);
    std::stable_sort(all.begin(), all.end(), [](const Warning* a, const Warning* b) {
        return a->input_line < b->input_line;
    });
    return all;
}

std::string format_text(const std::vector<InputReport>& reports, const std::vector<Rule>& rules,
                        const TextStyle& style) {
    const bool quiet = style.terse;
    const bool any_checks = std::any_of(reports.begin(), reports.end(),
                                        [](const InputReport& r) { return !r.unresolved.empty(); });
    // One rule: its calls, as checkpatch names its check's ("msleep() calls"); several: the
    // rules' names.
    std::string names;
    for (const Rule& rule : rules)
        names += (names.empty() ? "" : ", ") + rule.name;
    const std::string calls =
        rules.size() == 1 ? rule_calls(rules.front()) + " calls" : "sleeps (" + names + ")";
    // An input that was only a cover letter has nothing to say here (stderr has the note).
    std::vector<const InputReport*> shown;
    for (const auto& input : reports)
        if (input.patches > 0 || !input.warnings.empty() || !input.unresolved.empty())
            shown.push_back(&input);
    std::string out;
    for (const InputReport* shown_input : shown) {
        const InputReport& input = *shown_input;
        if (style.mailback && input.warnings.empty() && input.unresolved.empty())
            continue;
        if (shown.size() > 1 && !quiet) {
            std::string rule_line(input.vname.size(), '-');
            out += rule_line + "\n" + input.vname + "\n" + rule_line + "\n";
        }
        for (const Warning* w : in_input_order(input))
            out += format_finding(input, *w, style);
        if (style.summary)
            out += "total: 0 errors, " + std::to_string(input.warnings.size()) + " warnings, " +
                   (any_checks ? std::to_string(input.unresolved.size()) + " checks, " : "") +
                   std::to_string(input.lines_checked) + " lines checked\n";
        if (quiet)
            continue;
        if (!input.warnings.empty())
            out += "\n" + input.vname + " has small " + calls + ", please review.\n";
        else if (!input.unresolved.empty())
            out += "\n" + input.vname + " has " + calls +
                   " ksweep could not evaluate, please review.\n";
        else
            out += "\n" + input.vname + " has no small " + calls + ".\n";
    }
    return out;
}

} // namespace ksweep::check
