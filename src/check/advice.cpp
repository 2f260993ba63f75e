#include "check/advice.h"

#include "check/location.h"

#include <algorithm>

namespace ksweep::check {

Advice FixAdvisor::for_call(const std::string& path, const std::string& text,
                            const std::vector<Finding>& findings, const Finding& call) {
    std::vector<SiteOutcome> skipped;
    const FileFix fix = fix_file_text(rule_, path, text, findings, skipped,
                                      [this](const std::string& rel) -> std::optional<std::string> {
                                          const ScannedFile* file = scan_(rel);
                                          return file ? std::optional(file->text) : std::nullopt;
                                      });
    Advice advice;
    for (const SiteOutcome& s : fix.sites)
        if (s.finding.call_begin == call.call_begin) {
            advice.replacement = s.replacement;
            advice.how = s.how;
            if (fix.slack_defined_here && !fix.slack_name.empty() &&
                s.replacement.find(fix.slack_name) != std::string::npos)
                advice.slack_define =
                    "#define " + fix.slack_name + " " + std::to_string(fix.slack_us);
            return advice;
        }
    for (const SiteOutcome& s : skipped)
        if (s.finding.call_begin == call.call_begin) {
            advice.refused = s.reason;
            return advice;
        }
    advice.refused = "the fixer does not plan this call";
    return advice;
}

Advice FixAdvisor::for_macro_use(const std::string& path, const std::string& text,
                                 const std::vector<Finding>& findings, const Finding& use) {
    // Named, not structured bindings: clang 14 (clang-tidy's) cannot capture those in a lambda.
    const auto location = split_location(use.defined_at);
    const std::string& body_file = location.first;
    const unsigned body_line = location.second;
    const std::string* body_text = &text;
    const std::vector<Finding>* body_findings = &findings;
    if (body_file != path) {
        const ScannedFile* header = scan_(body_file);
        if (!header)
            return Advice{"", "", "", "cannot read " + body_file};
        body_text = &header->text;
        body_findings = &header->scan.findings;
    }
    std::vector<Finding> planned = *body_findings;
    auto in_body = std::find_if(planned.begin(), planned.end(), [&](const Finding& f) {
        return f.file == body_file && f.line == body_line && f.callee == use.callee;
    });
    if (in_body == planned.end())
        return Advice{"", "", "", "no " + use.callee + "() call found at " + use.defined_at};
    in_body->value = use.value;
    in_body->actionable = use.actionable; // judged with the use's value by the scan
    return for_call(body_file, *body_text, planned, *in_body);
}

} // namespace ksweep::check
