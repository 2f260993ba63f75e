// The renderings of a validation report: Markdown for people (and the issue/cover letter),
// JSON with every sample for tools (docs/report-json.md), SVG of the latency distributions, and
// the terminal's per-patch level list.
#pragma once

#include "validate/validate_report.h"

#include <string>

namespace ksweep::validate {

// "812 us", "12.3 ms", "4.86 s": three significant digits, the unit a reader expects.
std::string format_duration_us(double us);

// `chart_files[i]` is shown under the i-th device run's table (a relative path, may be empty).
std::string render_markdown(const ValidationReport& report,
                            const std::vector<std::string>& chart_files = {});

std::string render_json(const ValidationReport& report);

// The terminal summary `ksweep validate` and `ksweep demo` print: report-wide errors, then each
// patch and its levels that ran ("1/4 subject", "    L2 passed   0 errors, ..."), every line
// starting with `indent`.
std::string render_level_lines(const ValidationReport& report, const std::string& indent);

// Overlaid histograms of the baseline and patched extend times on a log time axis, medians
// marked and labelled; `title` goes on top.
std::string render_latency_svg(const DeviceRun& run, const std::string& title);

} // namespace ksweep::validate
