// Statistics of the L4 boots: per-variant summaries over pooled boots, the baseline/patched
// comparison, and the log-spaced histogram the SVG draws.
#pragma once

#include "validate/validate_report.h"

#include <string>
#include <vector>

namespace ksweep::validate {

// Successful extends only, in microseconds, in the order they ran.
std::vector<double> extend_times_us(const std::vector<ExtendSample>& samples);

// Pools the samples of every boot of `variant` (guest_stats' summarize: median of an even
// count is the mean of the middle two, p95 nearest rank) and adds up its violations.
VariantSummary summarize_variant(const std::string& variant, const std::vector<BootRun>& boots);

// Fills baseline, patched and median_ratio of `run` from its boots.
void summarize_device_run(DeviceRun& run);

// Patched median above the baseline's by more than the tolerance.
bool is_slowdown(const DeviceRun& run, double tolerance = kSlowdownTolerance);

struct Histogram {
    std::vector<double> edges; // bins + 1 edges, geometric (equal width on a log axis)
    std::vector<size_t> counts;
};

// `bins` geometric bins from `lo` to `hi` (both > 0, lo < hi); values outside are clamped
// into the first or last bin so that every sample is drawn.
Histogram log_histogram(const std::vector<double>& values, double lo, double hi, size_t bins);

// Axis ticks for [lo, hi] on a log axis: 1, 2, 5 times powers of ten that fall inside.
std::vector<double> log_ticks(double lo, double hi);

} // namespace ksweep::validate
