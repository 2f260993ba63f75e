#include "validate/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <utility>

namespace ksweep::validate {

using namespace ksweep::guest;

namespace {

// An index uniform in [0, n) from one 64-bit draw (Lemire's multiply-shift). Not
// std::uniform_int_distribution: its algorithm is left to the standard library, so the same seed
// would give another interval under libc++ than under libstdc++, whereas mt19937_64's sequence
// is fixed by the standard. The bias, at most n / 2^64, is nothing at a few hundred values.
size_t draw_index(std::mt19937_64& rng, size_t n) {
    return static_cast<size_t>((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

// The median of values.size() values drawn with replacement from `values`; `scratch` is reused
// across resamples so the bootstrap does not allocate in its loop.
double resampled_median(const std::vector<double>& values, std::mt19937_64& rng,
                        std::vector<double>& scratch) {
    scratch.resize(values.size());
    for (double& v : scratch)
        v = values[draw_index(rng, values.size())];
    return median_in_place(scratch);
}

std::string format(const char* fmt, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, value);
    return buf;
}

// "p < 0.001", "p = 0.004", "p = 0.62": more digits than that would claim a precision the normal
// approximation does not have.
std::string format_p(double p) {
    if (p < 0.001)
        return "p < 0.001";
    return format(p < 0.01 ? "p = %.3f" : "p = %.2f", p);
}

} // namespace

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

std::vector<double> pooled_times_us(const std::string& variant, const std::vector<BootRun>& boots) {
    std::vector<double> us;
    for (const auto& boot : boots)
        if (boot.variant == variant) {
            std::vector<double> times = extend_times_us(boot.samples);
            us.insert(us.end(), times.begin(), times.end());
        }
    return us;
}

double median_in_place(std::vector<double>& values) {
    if (values.empty())
        return 0;
    size_t mid = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<long>(mid), values.end());
    double upper = values[mid];
    if (values.size() % 2)
        return upper;
    // nth_element leaves the smaller half in front: its largest is the lower middle value.
    double lower = *std::max_element(values.begin(), values.begin() + static_cast<long>(mid));
    return (lower + upper) / 2;
}

std::optional<RatioInterval> bootstrap_median_ratio(const std::vector<double>& baseline,
                                                    const std::vector<double>& patched,
                                                    double confidence, int resamples,
                                                    std::uint64_t seed) {
    if (baseline.size() < kMinSamplesForInterval || patched.size() < kMinSamplesForInterval ||
        resamples < 1 || !(confidence > 0 && confidence < 1))
        return std::nullopt;
    std::vector<double> scratch = baseline;
    if (!(median_in_place(scratch) > 0))
        return std::nullopt; // no ratio to bound (median_ratio is 0 too)

    std::mt19937_64 rng(seed);
    std::vector<double> ratios;
    ratios.reserve(static_cast<size_t>(resamples));
    for (int i = 0; i < resamples; ++i) {
        // Each variant from its own sample: the two are independent measurements.
        double base = resampled_median(baseline, rng, scratch);
        double patch = resampled_median(patched, rng, scratch);
        // A zero baseline median in a resample (0 ns extends) leaves the ratio unbounded.
        ratios.push_back(base > 0 ? patch / base : std::numeric_limits<double>::infinity());
    }
    std::sort(ratios.begin(), ratios.end());
    // The k-th smallest and k-th largest ratio, k = resamples * (1 - confidence) / 2: 50 of
    // 2000 at 95 %. The epsilon keeps 49.99999 (binary fractions) from becoming 49.
    auto k = static_cast<size_t>(std::floor(resamples * (1 - confidence) / 2 + 1e-9));
    k = std::max<size_t>(k, 1);
    return RatioInterval{ratios[k - 1], ratios[ratios.size() - k]};
}

std::optional<MannWhitney> mann_whitney_u(const std::vector<double>& baseline,
                                          const std::vector<double>& patched) {
    if (baseline.empty() || patched.empty())
        return std::nullopt;
    const auto n1 = static_cast<double>(baseline.size());
    const auto n2 = static_cast<double>(patched.size());
    const double n = n1 + n2;

    // Every value with its side (true: patched), in ascending order.
    std::vector<std::pair<double, bool>> all;
    all.reserve(baseline.size() + patched.size());
    for (double v : baseline)
        all.emplace_back(v, false);
    for (double v : patched)
        all.emplace_back(v, true);
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });

    // Ranks 1..n; a run of t equal values shares the mean of the ranks it spans, and each run
    // adds t^3 - t to the tie term, which shrinks the variance: ties carry no order information.
    double patched_rank_sum = 0, tie_term = 0;
    for (size_t i = 0; i < all.size();) {
        size_t j = i;
        while (j < all.size() && all[j].first == all[i].first)
            ++j;
        double mean_rank = static_cast<double>(i + 1 + j) / 2; // of ranks i+1 .. j
        for (size_t k = i; k < j; ++k)
            if (all[k].second)
                patched_rank_sum += mean_rank;
        auto t = static_cast<double>(j - i);
        tie_term += t * t * t - t;
        i = j;
    }

    MannWhitney result;
    result.u = patched_rank_sum - n2 * (n2 + 1) / 2;
    const double mean = n1 * n2 / 2;
    const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
    if (!(variance > 0))
        return result; // every value equal: no evidence either way (z 0, p 1)
    const double sd = std::sqrt(variance);
    // Continuity correction: U moves in steps of 1/2, the normal curve does not.
    const double distance = std::max(0.0, std::abs(result.u - mean) - 0.5);
    result.z = std::copysign(distance / sd, result.u - mean);
    result.p = std::erfc(distance / sd / std::sqrt(2.0)); // 2 * (1 - Phi(|z|))
    return result;
}

void summarize_device_run(DeviceRun& run) {
    run.baseline = summarize_variant("baseline", run.boots);
    run.patched = summarize_variant("patched", run.boots);
    run.median_ratio = run.baseline.summary.count && run.patched.summary.count &&
                               run.baseline.summary.median_us > 0
                           ? run.patched.summary.median_us / run.baseline.summary.median_us
                           : 0;
    const std::vector<double> base = pooled_times_us("baseline", run.boots);
    const std::vector<double> patched = pooled_times_us("patched", run.boots);
    const std::optional<RatioInterval> interval = bootstrap_median_ratio(base, patched);
    run.median_ratio_low = interval ? interval->low : 0;
    run.median_ratio_high = interval ? interval->high : 0;
    const std::optional<MannWhitney> test = mann_whitney_u(base, patched);
    run.mann_whitney_p = test ? test->p : -1;
}

bool is_slowdown(const DeviceRun& run, double tolerance) {
    // No interval leaves median_ratio_low at 0: never slower.
    return run.median_ratio_low > 1.0 + tolerance;
}

std::string format_ratio_evidence(const DeviceRun& run) {
    if (!(run.median_ratio > 0))
        return "no median ratio (a variant has no successful extend)";
    std::string text = format("median ratio %.2fx (", run.median_ratio);
    if (run.median_ratio_high > 0)
        text += format("%.0f %% CI ", kConfidenceLevel * 100) +
                format("%.2f", run.median_ratio_low) + "-" + format("%.2f", run.median_ratio_high);
    else
        text += "too few samples for a confidence interval";
    if (run.mann_whitney_p >= 0)
        text += ", Mann-Whitney " + format_p(run.mann_whitney_p);
    return text + ")";
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
