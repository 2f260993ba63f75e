// checkpatch.pl's output, reproduced from its report() and process(): a warning is
//   WARNING: <message>             (WARNING:<TYPE>: with --show-types)
//   #<patch line>: FILE: <file>:<line>:
//   +<added line>
//   <blank>
// --showfile drops the "#N: FILE:" line and puts "<file>:<line>: " before the level; --terse
// keeps only the first line, prefixed "<input>:<patch line>: " (or "<file>:<line>: " with
// --showfile). The summary counts "lines checked" as checkpatch does (see unified_diff.cpp).
#include "check/report_format.h"

namespace ksweep::check {

namespace {

std::string level_and_message(const Warning& w, const TextStyle& style) {
    std::string out = "WARNING:";
    if (style.show_types)
        out += std::string(kWarningType) + ":";
    return out + " " + w.message;
}

std::string format_warning(const InputReport& input, const Warning& w, const TextStyle& style) {
    std::string file_line = w.finding.file + ":" + std::to_string(w.finding.line) + ":";
    std::string first;
    if (style.showfile)
        first = file_line + " ";
    else if (style.terse)
        first = input.filename + ":" + std::to_string(w.input_line) + ": ";
    first += level_and_message(w, style) + "\n";
    if (style.terse)
        return first;
    if (style.showfile)
        return first + "+" + w.added_line + "\n\n";
    return first + "#" + std::to_string(w.input_line) + ": FILE: " + file_line + "\n+" +
           w.added_line + "\n\n";
}

} // namespace

std::string format_text(const std::vector<InputReport>& reports, const TextStyle& style) {
    bool quiet = style.terse;
    std::string out;
    for (const auto& input : reports) {
        if (style.mailback && input.warnings.empty())
            continue;
        if (reports.size() > 1 && !quiet) {
            std::string rule(input.vname.size(), '-');
            out += rule + "\n" + input.vname + "\n" + rule + "\n";
        }
        for (const auto& w : input.warnings)
            out += format_warning(input, w, style);
        if (style.summary)
            out += "total: 0 errors, " + std::to_string(input.warnings.size()) + " warnings, " +
                   std::to_string(input.lines_checked) + " lines checked\n";
        if (!quiet)
            out += "\n" + input.vname +
                   (input.warnings.empty() ? " has no small msleep() calls on added lines.\n"
                                           : " has small msleep() calls, please review.\n");
    }
    return out;
}

} // namespace ksweep::check
