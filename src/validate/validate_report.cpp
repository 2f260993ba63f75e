#include "validate/validate_report.h"

#include <algorithm>

namespace ksweep::validate {

const char* to_string(LevelStatus status) {
    switch (status) {
    case LevelStatus::passed:
        return "passed";
    case LevelStatus::failed:
        return "failed";
    case LevelStatus::not_run:
        return "not run";
    case LevelStatus::not_applicable:
        return "not applicable";
    case LevelStatus::not_built:
        return "not built";
    case LevelStatus::skipped:
        return "skipped";
    }
    return "?";
}

std::string interrupt_suffix(const DeviceRun& run) {
    if (run.interrupt.empty())
        return "";
    return run.interrupt == "wired" ? ", IRQ" : ", no IRQ";
}

bool PatchResult::passed() const {
    return std::none_of(levels.begin(), levels.end(),
                        [](const LevelResult& l) { return l.status == LevelStatus::failed; });
}

bool ValidationReport::passed() const {
    return errors.empty() && !patches.empty() &&
           std::all_of(patches.begin(), patches.end(),
                       [](const PatchResult& p) { return p.passed(); });
}

} // namespace ksweep::validate
