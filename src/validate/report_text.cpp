#include "validate/report_render.h"

#include <cstdio>

namespace ksweep::validate {

std::string render_level_lines(const ValidationReport& report, const std::string& indent) {
    std::string out;
    for (const auto& error : report.errors)
        out += indent + "error: " + error + "\n";
    for (const auto& patch : report.patches) {
        out += indent + std::to_string(patch.number) + "/" + std::to_string(report.patches.size()) +
               " " + patch.subject + "\n";
        for (size_t l = 0; l < patch.levels.size(); ++l) {
            // A level not asked for says nothing; one skipped for a reason says it.
            if (patch.levels[l].status == LevelStatus::skipped && patch.levels[l].message.empty())
                continue;
            char head[32];
            std::snprintf(head, sizeof head, "    L%zu %-14s ", l + 1,
                          to_string(patch.levels[l].status));
            out += indent + head + patch.levels[l].message + "\n";
        }
    }
    return out;
}

} // namespace ksweep::validate
