// Commit messages from the rule's templates (rules/<name>.yaml `subject:` and `body:`),
// wrapped at 75 columns, ending in Signed-off-by.
//
// Placeholders: {callee} {target} {threshold_ms} {hz} {jiffy_ms} {kernel} {count} {files}
// {sites} (one line per call site with its predicted real sleep) {model} (where those
// predictions come from: "sleep model, HZ=250 from the tree's config") {slack} (the slack
// chosen and why) {measured} (a sentence from the validation report, labelled "Measured by
// ksweep validate (report ...)", or nothing) {timers_doc} (the timers document the tree has,
// "Documentation/timers/delay_sleep_functions.rst" or ".../timers-howto.rst", or nothing)
// {timers_advice} (that document's advice in one sentence, or nothing when the tree has none)
// {loops} (for each site in a loop that gives up after a number of tries: what the fix did with
// the loop and its budget before and after at HZ 100, 250 and 1000; a template without {loops}
// gets that paragraph at its end all the same: a budget change is never left unsaid).
//
// Every figure a message quotes says where it comes from: the sleep model (and where HZ came
// from) or a ksweep validate report.
#pragma once

#include "core/rule.h"
#include "core/sleep_model.h"
#include "kbuild/sleep_api.h"
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
    // What the tree's own sources say (kbuild::read_sleep_api); nullptr: not read, and the
    // message says nothing that depends on it.
    const kbuild::SleepApi* sleep_api = nullptr;
    // `hz` with where it came from, kbuild::HzChoice::label ("HZ=250 from the tree's .config",
    // "HZ=1000 as given with --hz"); "" when the caller does not know: then just "HZ=250".
    std::string hz_label;
};

// The label of the sleep model's figures: "sleep model, HZ=250 from the tree's .config".
std::string model_label(const MessageContext& ctx);

// The timers document's advice for this target, one sentence naming the document, or "" when
// the tree has none (or it was not read).
std::string timers_advice(const MessageContext& ctx);

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

// The loop paragraph ({loops}): one sentence per site in a count-ended loop (or one whose loop
// was not analysed), "" when there is none.
std::string loop_paragraph(const MessageContext& ctx);

// The placeholder values for a context.
std::vector<std::pair<std::string, std::string>> message_values(const MessageContext& ctx);

// Expands {name} placeholders; unknown names are left as written.
std::string expand(const std::string& text,
                   const std::vector<std::pair<std::string, std::string>>& values);

} // namespace ksweep::series
