// Commit messages from the rule's templates (rules/<name>.yaml `subject:` and `body:`),
// wrapped at 75 columns, ending in Signed-off-by.
//
// Placeholders: {callee} {target} {threshold_ms} {hz} {jiffy_ms} {kernel} {count} {files}
// {sites} (one line per call site with its predicted real sleep) {slack} (the slack chosen
// and why) {measured} (a sentence from the validation report, or nothing).
#pragma once

#include "core/rule.h"
#include "core/sleep_model.h"
#include "rewrite/fixer.h"
#include "series/report.h"

#include <string>
#include <vector>

namespace ksweep::series {

struct MessageContext {
    const Rule* rule = nullptr;
    std::vector<const FileFix*> files; // the files of this patch
    int hz = 250;
    KernelVersion kernel;
    const PatchMeasurement* measured = nullptr; // this patch's entry in the report
    const ValidationFigures* report = nullptr;
};

// The summary after the prefix, from the rule's subject template.
std::string summary_from_template(const MessageContext& ctx);

// "prefix: summary<suffix>", at most `max` characters: a summary that does not fit loses
// words from its end; the suffix (what makes a subject unique) is always kept. A prefix that
// ends in its own separator (':', '-' or ')': "Input: xpad -", "hwmon: (lm90)") is followed
// by a space only.
std::string full_summary(const std::string& prefix, const std::string& summary, size_t max = 75,
                         const std::string& suffix = "");

// The body (without subject), wrapped, with "Signed-off-by: <signoff>" at the end.
std::string commit_body(const MessageContext& ctx, const std::string& signoff);

// The placeholder values for a context.
std::vector<std::pair<std::string, std::string>> message_values(const MessageContext& ctx);

// Expands {name} placeholders; unknown names are left as written.
std::string expand(const std::string& text,
                   const std::vector<std::pair<std::string, std::string>>& values);

} // namespace ksweep::series
