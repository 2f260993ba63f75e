// Statistics of the L4 boots: per-variant summaries over pooled boots, the baseline/patched
// comparison (median ratio, its bootstrap confidence interval, a Mann-Whitney U test, the
// slowdown verdict), and the log-spaced histogram the SVG draws.
#pragma once

#include "validate/validate_report.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::validate {

// Successful extends only, in microseconds, in the order they ran.
std::vector<double> extend_times_us(const std::vector<guest::ExtendSample>& samples);

// Pools the samples of every boot of `variant` (guest_stats' summarize: median of an even
// count is the mean of the middle two, p95 nearest rank) and adds up its violations.
VariantSummary summarize_variant(const std::string& variant, const std::vector<BootRun>& boots);

// The successful extend times of every boot of `variant`, pooled, in microseconds: the sample
// summarize_variant's median is taken over, and the one the comparisons below resample.
std::vector<double> pooled_times_us(const std::string& variant, const std::vector<BootRun>& boots);

// The median as summarize() takes it (mean of the middle two for an even count), so that the
// bootstrap resamples the same statistic the report prints. Reorders `values`; 0 when empty.
double median_in_place(std::vector<double>& values);

// How the confidence interval of the median ratio is computed. The seed is fixed so that the
// same samples always give the same interval and therefore the same verdict: a report can be
// re-rendered, a test cannot flake, and a patch cannot pass one run of `ksweep validate` and fail
// the next on the same data. The uncertainty the interval expresses is that of the extends, not
// of the PRNG: with 2000 resamples the 2.5 % and 97.5 % points move by well under the width of
// the interval from one seed to another.
inline constexpr int kBootstrapResamples = 2000;
inline constexpr std::uint64_t kBootstrapSeed = 0x6b7377656570ULL; // "ksweep"
inline constexpr double kConfidenceLevel = 0.95;
// A median's bootstrap needs enough values to have a distribution: with a handful of extends
// the resampled medians take a few distinct values and the percentile interval is far too
// narrow (one extend per variant gives a zero-width interval). Below this, per variant, there is
// no interval and so no slowdown verdict.
inline constexpr size_t kMinSamplesForInterval = 20;

struct RatioInterval {
    double low = 0, high = 0;
};

// Percentile bootstrap interval of median(patched) / median(baseline): each resample draws
// baseline and patched independently, with replacement, each from its own pooled sample and at
// its own size. No interval when either side has fewer than kMinSamplesForInterval values or a
// zero median.
//
// Every extend is treated as an independent draw. Extends of one boot share that boot's host
// conditions, so the interval reflects the extend-to-extend noise, not the boot-to-boot one;
// interleaving the boots makes a slow host phase hit both variants, which is what keeps this
// honest enough with the usual two boots per variant (too few to resample boots themselves).
std::optional<RatioInterval> bootstrap_median_ratio(const std::vector<double>& baseline,
                                                    const std::vector<double>& patched,
                                                    double confidence = kConfidenceLevel,
                                                    int resamples = kBootstrapResamples,
                                                    std::uint64_t seed = kBootstrapSeed);

struct MannWhitney {
    double u = 0; // pairs (baseline, patched) with the patched value larger, ties counting 1/2
    double z = 0; // standardized, continuity-corrected; positive: patched tends to be larger
    double p = 1; // two-sided
};

// Mann-Whitney U test of baseline against patched: do the patched values tend to be larger or
// smaller than the baseline's? Rank-based, so a few huge outliers (a host hiccup during one
// extend) weigh no more than any other slow extend. Normal approximation with the tie correction
// of the variance (timings at ns resolution rarely tie, but a quantized clock makes them) and a
// continuity correction; fine from about ten values per side, and we have hundreds. No result
// when either side is empty.
std::optional<MannWhitney> mann_whitney_u(const std::vector<double>& baseline,
                                          const std::vector<double>& patched);

// Fills baseline, patched, median_ratio, its confidence interval and the Mann-Whitney p-value of
// `run` from its boots.
void summarize_device_run(DeviceRun& run);

// The verdict "slower": the whole confidence interval of the median ratio lies above
// 1 + tolerance, i.e. even the most favourable reading of the data the interval allows is a
// slowdown larger than noise. The practical threshold (10 %) is kept and now applied to the
// interval's lower end, not to the point estimate: a point estimate of 1.12 with an interval of
// 0.95-1.30 is not a demonstrated slowdown, while a 2x slower patch has its whole interval far
// above 1.10. The Mann-Whitney p-value is reported next to it but does not decide: it answers a
// different question (are the distributions shifted at all, by however little), and with
// hundreds of extends a 2 % shift is "significant" without mattering. No interval (too few
// extends): no verdict, never "slower".
bool is_slowdown(const DeviceRun& run, double tolerance = kSlowdownTolerance);

// "median ratio 0.29x (95 % CI 0.28-0.30, Mann-Whitney p < 0.001)" for the report and the L4
// message; says so when there are too few samples (extends, operations) for an interval.
std::string format_ratio_evidence(const DeviceRun& run);

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
