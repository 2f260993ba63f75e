#include "validate/stats.h"

#include <algorithm>
#include <cmath>

namespace ksweep::validate {

std::vector<double> extend_times_us(const std::vector<ExtendSample>& samples) {
    std::vector<double> us;
    us.reserve(samples.size());
    for (const auto& s : samples)
        if (s.rc == 0)
            us.push_back(static_cast<double>(s.ns) / 1000.0);
    return us;
}

VariantSummary summarize_variant(const std::string& variant, const std::vector<BootRun>& boots) {
    VariantSummary out;
    out.variant = variant;
    std::vector<ExtendSample> pooled;
    for (const auto& boot : boots) {
        if (boot.variant != variant)
            continue;
        ++out.boots;
        if (!boot.ok)
            ++out.failed_boots;
        pooled.insert(pooled.end(), boot.samples.begin(), boot.samples.end());
        for (const auto& [requirement, count] : boot.violations)
            out.violations[requirement] += count;
    }
    out.summary = summarize(pooled);
    return out;
}

void summarize_device_run(DeviceRun& run) {
    run.baseline = summarize_variant("baseline", run.boots);
    run.patched = summarize_variant("patched", run.boots);
    run.median_ratio = run.baseline.summary.count && run.patched.summary.count &&
                               run.baseline.summary.median_us > 0
                           ? run.patched.summary.median_us / run.baseline.summary.median_us
                           : 0;
}

bool is_slowdown(const DeviceRun& run, double tolerance) {
    return run.median_ratio > 1.0 + tolerance;
}

Histogram log_histogram(const std::vector<double>& values, double lo, double hi, size_t bins) {
    Histogram h;
    if (bins == 0 || !(lo > 0) || !(hi > lo))
        return h;
    double log_lo = std::log(lo), step = (std::log(hi) - log_lo) / static_cast<double>(bins);
    for (size_t i = 0; i <= bins; ++i)
        h.edges.push_back(std::exp(log_lo + step * static_cast<double>(i)));
    h.counts.assign(bins, 0);
    for (double v : values) {
        double position = v > 0 ? (std::log(v) - log_lo) / step : 0;
        auto bin = static_cast<long>(std::floor(position));
        ++h.counts[static_cast<size_t>(std::clamp<long>(bin, 0, static_cast<long>(bins) - 1))];
    }
    return h;
}

std::vector<double> log_ticks(double lo, double hi) {
    std::vector<double> ticks;
    if (!(lo > 0) || !(hi > lo))
        return ticks;
    for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10)
        for (double m : {1.0, 2.0, 5.0}) {
            double t = m * decade;
            // A relative epsilon: 10^k computed by repeated products is not exact.
            if (t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9))
                ticks.push_back(t);
        }
    return ticks;
}

} // namespace ksweep::validate
