// How `check` prints what it found: as checkpatch.pl does (so that b4's prep-perpatch-check-cmd
// and CI log parsers read it unchanged), as JSON, or as SARIF 2.1.0 for code-scanning pages.
// A small sleep is a WARNING of type MSLEEP; a call whose constant could not be evaluated is a
// CHECK of type MSLEEP_UNRESOLVED (check_types.h names them).
#pragma once

#include "check/patch_check.h"
#include "core/rule.h"

#include <string>
#include <vector>

namespace ksweep::check {

// checkpatch.pl's output switches, with its meanings.
struct TextStyle {
    bool terse = false;      // one line per finding: "FILE:N: WARNING: ..."
    bool showfile = false;   // locate by patched file and line instead of patch line
    bool show_types = false; // "WARNING:MSLEEP:" instead of "WARNING:"
    bool summary = true;     // the "total: ..." line
    bool mailback = false;   // print nothing for an input without findings
};

struct RunInfo {
    std::string version; // ksweep's
    std::string tree;
    int hz = 250;
    KernelVersion kernel;
};

// `rules`: those the check ran, in order; each warning names its own (Finding::rule).
std::string format_text(const std::vector<InputReport>& reports, const std::vector<Rule>& rules,
                        const TextStyle& style);
std::string format_json(const std::vector<InputReport>& reports, const std::vector<Rule>& rules,
                        const RunInfo& run);
std::string format_sarif(const std::vector<InputReport>& reports, const std::vector<Rule>& rules,
                         const RunInfo& run);

// An input's warnings and checks in the order the input shows them (patch line).
std::vector<const Warning*> in_input_order(const InputReport& report);

} // namespace ksweep::check
