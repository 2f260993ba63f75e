// Statistics of L4 boots: pooled summaries, the median ratio with its bootstrap interval, the
// Mann-Whitney test, the slowdown verdict, histograms.
#include "validate/stats.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <regex>

namespace ksweep::validate {
namespace {

BootRun boot(const std::string& variant, int number, std::vector<std::int64_t> ns, bool ok = true) {
    BootRun b;
    b.variant = variant;
    b.boot = number;
    b.ok = b.pcr_passed = ok;
    for (size_t i = 0; i < ns.size(); ++i)
        b.samples.push_back({static_cast<std::uint32_t>(i), ns[i], 0});
    return b;
}

TEST(StatsTest, PoolsBootsOfOneVariantOnly) {
    std::vector<BootRun> boots{boot("baseline", 1, {10000, 30000}),
                               boot("patched", 1, {1000, 2000}),
                               boot("baseline", 2, {20000, 40000, 50000})};
    VariantSummary s = summarize_variant("baseline", boots);
    EXPECT_EQ(s.boots, 2);
    EXPECT_EQ(s.summary.count, 5u);
    EXPECT_DOUBLE_EQ(s.summary.median_us, 30.0); // 10 20 30 40 50 us
    EXPECT_DOUBLE_EQ(s.summary.min_us, 10.0);
    EXPECT_DOUBLE_EQ(s.summary.max_us, 50.0);
    EXPECT_DOUBLE_EQ(s.summary.total_ms, 0.15);
}

TEST(StatsTest, MedianOfEvenCountAndNearestRankP95) {
    std::vector<std::int64_t> ns;
    for (int i = 1; i <= 100; ++i)
        ns.push_back(i * 1000); // 1..100 us
    VariantSummary s = summarize_variant("patched", {boot("patched", 1, ns)});
    EXPECT_DOUBLE_EQ(s.summary.median_us, 50.5);
    EXPECT_DOUBLE_EQ(s.summary.p95_us, 95.0);
}

TEST(StatsTest, FailedExtendsAreNotTimedButViolationsAdd) {
    BootRun b = boot("patched", 1, {1000, 99000000});
    b.samples[1].rc = 0x80000000u; // the exchange failed: its time says nothing
    b.violations["min_status_gap"] = 3;
    BootRun c = boot("patched", 2, {3000}, false);
    c.violations["min_status_gap"] = 4;
    VariantSummary s = summarize_variant("patched", {b, c});
    EXPECT_EQ(s.summary.count, 2u);
    EXPECT_DOUBLE_EQ(s.summary.max_us, 3.0);
    EXPECT_EQ(s.failed_boots, 1);
    EXPECT_EQ(s.violations.at("min_status_gap"), 7u);
}

// n extend times in us around `median_us`: lognormal with shape `sigma` (TCG timing noise is
// multiplicative and right-skewed), so the population median is exactly `median_us`.
std::vector<double> lognormal_us(size_t n, double median_us, double sigma, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> noise(0.0, sigma);
    std::vector<double> us(n);
    for (double& v : us)
        v = median_us * noise(rng);
    return us;
}

BootRun boot_us(const std::string& variant, int number, const std::vector<double>& us) {
    std::vector<std::int64_t> ns;
    for (double v : us)
        ns.push_back(std::llround(v * 1000));
    return boot(variant, number, ns);
}

// Two interleaved boots per variant of `per_boot` extends each, as `ksweep validate` runs them.
DeviceRun interleaved_run(double baseline_us, double patched_us, double sigma, size_t per_boot) {
    DeviceRun run;
    std::uint64_t seed = 1;
    for (int b = 1; b <= 2; ++b) {
        run.boots.push_back(
            boot_us("baseline", b, lognormal_us(per_boot, baseline_us, sigma, seed++)));
        run.boots.push_back(
            boot_us("patched", b, lognormal_us(per_boot, patched_us, sigma, seed++)));
    }
    summarize_device_run(run);
    return run;
}

TEST(StatsTest, RatioAndSlowdown) {
    DeviceRun run;
    run.boots = {boot("baseline", 1, {24000000, 24000000}), boot("patched", 1, {2400000})};
    summarize_device_run(run);
    EXPECT_NEAR(run.median_ratio, 0.1, 1e-12);
    EXPECT_FALSE(is_slowdown(run));

    // One extend each: 1.2x is a point estimate with no spread behind it, so no interval and no
    // verdict (the fixed 10 % rule used to call this slower).
    run.boots = {boot("baseline", 1, {1000000}), boot("patched", 1, {1200000})};
    summarize_device_run(run);
    EXPECT_NEAR(run.median_ratio, 1.2, 1e-12);
    EXPECT_EQ(run.median_ratio_low, 0);
    EXPECT_EQ(run.median_ratio_high, 0);
    EXPECT_FALSE(is_slowdown(run));
}

TEST(StatsTest, NoPatchedSamplesGiveNoRatio) {
    DeviceRun run;
    run.boots = {boot("baseline", 1, {1000000})};
    summarize_device_run(run);
    EXPECT_EQ(run.median_ratio, 0);
    EXPECT_EQ(run.median_ratio_low, 0);
    EXPECT_EQ(run.median_ratio_high, 0);
    EXPECT_EQ(run.mann_whitney_p, -1);
    EXPECT_FALSE(is_slowdown(run));
    EXPECT_EQ(format_ratio_evidence(run), "no median ratio (a variant has no successful extend)");
}

TEST(StatsTest, EmptySamplesGiveNoIntervalNoTestAndNoVerdict) {
    EXPECT_FALSE(bootstrap_median_ratio({}, {}));
    EXPECT_FALSE(bootstrap_median_ratio({}, lognormal_us(100, 1000, 0.1, 1)));
    EXPECT_FALSE(mann_whitney_u({}, {1, 2, 3}));
    EXPECT_FALSE(mann_whitney_u({1, 2, 3}, {}));
    std::vector<double> none;
    EXPECT_EQ(median_in_place(none), 0);

    DeviceRun run; // no boots at all
    summarize_device_run(run);
    EXPECT_EQ(run.mann_whitney_p, -1);
    EXPECT_FALSE(is_slowdown(run));
    // Boots whose every extend failed: nothing timed, nothing judged.
    run.boots = {boot("baseline", 1, {1000}), boot("patched", 1, {2000})};
    run.boots[0].samples[0].rc = run.boots[1].samples[0].rc = 0x80000000u;
    summarize_device_run(run);
    EXPECT_EQ(run.median_ratio, 0);
    EXPECT_EQ(run.mann_whitney_p, -1);
    EXPECT_FALSE(is_slowdown(run));
}

TEST(StatsTest, MedianInPlaceIsSummarizesMedian) {
    std::vector<double> odd{5, 1, 4, 2, 3}, even{40, 10, 30, 20};
    EXPECT_DOUBLE_EQ(median_in_place(odd), 3);
    EXPECT_DOUBLE_EQ(median_in_place(even), 25); // the mean of the middle two, as summarize()
}

TEST(StatsTest, BootstrapIntervalContainsTheTrueRatio) {
    // Population medians 24 ms and 7 ms: true ratio 0.2917, noise as wide as TCG's.
    auto base = lognormal_us(400, 24000, 0.3, 11), patched = lognormal_us(400, 7000, 0.3, 12);
    auto ci = bootstrap_median_ratio(base, patched);
    ASSERT_TRUE(ci);
    EXPECT_LT(ci->low, 7.0 / 24);
    EXPECT_GT(ci->high, 7.0 / 24);
    EXPECT_LT(ci->high - ci->low, 0.1) << "400 extends per side pin the ratio down";
    // And the point estimate sits inside its own interval.
    double ratio = median_in_place(patched) / median_in_place(base);
    EXPECT_LE(ci->low, ratio);
    EXPECT_GE(ci->high, ratio);
}

TEST(StatsTest, BootstrapIntervalCoversTheTrueRatioAboutNineteenTimesInTwenty) {
    // 200 independent experiments, true ratio 1.5: a 95 % interval that is honest misses about
    // 10 of them; one too narrow (or too wide) misses many more (or none).
    int covered = 0, experiments = 200;
    for (int e = 0; e < experiments; ++e) {
        auto base = lognormal_us(100, 1000, 0.4, 1000 + 2 * e);
        auto patched = lognormal_us(100, 1500, 0.4, 1001 + 2 * e);
        auto ci = bootstrap_median_ratio(base, patched);
        ASSERT_TRUE(ci);
        covered += ci->low <= 1.5 && 1.5 <= ci->high;
    }
    EXPECT_GE(covered, 176) << covered << " of " << experiments; // >= 88 %
    EXPECT_LE(covered, 198) << covered << " of " << experiments; // <= 99 %
}

TEST(StatsTest, BootstrapIsDeterministicAndBarelyDependsOnTheSeed) {
    auto base = lognormal_us(400, 1000, 0.3, 21), patched = lognormal_us(400, 1200, 0.3, 22);
    auto a = bootstrap_median_ratio(base, patched), b = bootstrap_median_ratio(base, patched);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->low, b->low);
    EXPECT_EQ(a->high, b->high);
    auto other = bootstrap_median_ratio(base, patched, kConfidenceLevel, kBootstrapResamples, 7);
    ASSERT_TRUE(other);
    double width = a->high - a->low;
    EXPECT_NEAR(other->low, a->low, 0.1 * width);
    EXPECT_NEAR(other->high, a->high, 0.1 * width);
}

TEST(StatsTest, IdenticalDistributionsGiveAnIntervalAroundOneAndALargeP) {
    DeviceRun run = interleaved_run(20000, 20000, 0.3, 200);
    EXPECT_LT(run.median_ratio_low, 1);
    EXPECT_GT(run.median_ratio_high, 1);
    EXPECT_GT(run.median_ratio_low, 0.9);
    EXPECT_LT(run.median_ratio_high, 1.1);
    EXPECT_GT(run.mann_whitney_p, 0.05);
    EXPECT_FALSE(is_slowdown(run));

    // The very same values on both sides: nothing to tell apart.
    auto same = lognormal_us(100, 1000, 0.3, 5);
    auto test = mann_whitney_u(same, same);
    ASSERT_TRUE(test);
    EXPECT_DOUBLE_EQ(test->u, 100.0 * 100 / 2);
    EXPECT_DOUBLE_EQ(test->p, 1);
    auto ci = bootstrap_median_ratio(same, same);
    ASSERT_TRUE(ci);
    EXPECT_LE(ci->low, 1);
    EXPECT_GE(ci->high, 1);
}

TEST(StatsTest, MannWhitneyMatchesTheTextbookNormalApproximation) {
    // No overlap, 5 against 5: U = 25 (every patched value larger), mu 12.5, sigma^2 = 25*11/12,
    // z = (12.5 - 0.5) / 4.787 = 2.507, two-sided p = 0.01219 (R: wilcox.test(exact = FALSE)).
    auto test = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
    ASSERT_TRUE(test);
    EXPECT_DOUBLE_EQ(test->u, 25);
    EXPECT_NEAR(test->z, 2.50672, 1e-5);
    EXPECT_NEAR(test->p, 0.0121858, 1e-6);
    auto reverse = mann_whitney_u({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
    ASSERT_TRUE(reverse);
    EXPECT_DOUBLE_EQ(reverse->u, 0);
    EXPECT_NEAR(reverse->z, -2.50672, 1e-5);
    EXPECT_NEAR(reverse->p, test->p, 1e-15) << "two-sided: symmetric";
}

TEST(StatsTest, MannWhitneyCorrectsTheVarianceForTies) {
    // 1 2 2 | 2 3 3 | 3 4 over both sides: the 2s share rank 3, the 3s rank 6. Patched ranks
    // 3 + 6 + 6 + 8 = 23, U = 23 - 10 = 13, mu 8; tie term 2 * (27 - 3) = 48, so
    // sigma^2 = 16/12 * (9 - 48/56) = 10.857 (12 without the correction),
    // z = (5 - 0.5) / 3.2950 = 1.3657, p = 0.17203 (0.1939 if the ties were ignored).
    auto test = mann_whitney_u({1, 2, 2, 3}, {2, 3, 3, 4});
    ASSERT_TRUE(test);
    EXPECT_DOUBLE_EQ(test->u, 13);
    EXPECT_NEAR(test->z, 1.365698, 1e-6);
    EXPECT_NEAR(test->p, 0.172034, 1e-6);
}

TEST(StatsTest, MannWhitneyOfAllEqualValuesIsNoEvidence) {
    auto test = mann_whitney_u({7, 7, 7}, {7, 7});
    ASSERT_TRUE(test);
    EXPECT_DOUBLE_EQ(test->u, 3);
    EXPECT_EQ(test->z, 0);
    EXPECT_EQ(test->p, 1);
}

TEST(StatsTest, TwiceAsSlowIsSlower) {
    DeviceRun run = interleaved_run(3000, 6000, 0.3, 200);
    EXPECT_NEAR(run.median_ratio, 2, 0.1);
    EXPECT_GT(run.median_ratio_low, 1.8);
    EXPECT_LT(run.median_ratio_high, 2.2);
    EXPECT_LT(run.mann_whitney_p, 1e-10);
    EXPECT_TRUE(is_slowdown(run));
}

TEST(StatsTest, NoisyButFasterIsNotSlower) {
    // Patched is faster at the median but far noisier: a long tail of 50x hiccups on 15 % of its
    // extends pulls its mean far above the baseline's. The median ratio's interval stays below 1.
    auto patched = lognormal_us(400, 7000, 0.8, 31);
    for (size_t i = 0; i < patched.size(); i += 7)
        patched[i] *= 50;
    DeviceRun run;
    run.boots = {boot_us("baseline", 1, lognormal_us(400, 24000, 0.2, 32)),
                 boot_us("patched", 1, patched)};
    summarize_device_run(run);
    EXPECT_LT(run.median_ratio_high, 1);
    EXPECT_FALSE(is_slowdown(run));
}

TEST(StatsTest, ANoisyFifteenPercentIsNoDemonstratedSlowdown) {
    // 41 extends per side spread over two decades, patched exactly 1.15x the baseline value for
    // value: the point estimate is 1.15 (the old fixed 10 % rule said "slower"), but so few,
    // so spread values cannot rule out no slowdown at all.
    std::vector<double> base, patched;
    for (int i = 0; i <= 40; ++i) {
        base.push_back(100 * std::pow(100.0, i / 40.0));
        patched.push_back(1.15 * base.back());
    }
    DeviceRun run;
    run.boots = {boot_us("baseline", 1, base), boot_us("patched", 1, patched)};
    summarize_device_run(run);
    EXPECT_NEAR(run.median_ratio, 1.15, 1e-3);
    EXPECT_LT(run.median_ratio_low, 1.1);
    EXPECT_GT(run.median_ratio_high, 1.15);
    EXPECT_GT(run.mann_whitney_p, 0.05);
    EXPECT_FALSE(is_slowdown(run));
}

TEST(StatsTest, RatioEvidenceSentence) {
    DeviceRun run = interleaved_run(24000, 7000, 0.2, 200);
    EXPECT_TRUE(std::regex_search(
        format_ratio_evidence(run),
        std::regex(
            R"(^median ratio 0\.29x \(95 % CI 0\.2[789]-0\.3[01], Mann-Whitney p < 0\.001\)$)")))
        << format_ratio_evidence(run);

    run.boots = {boot("baseline", 1, {1000000}), boot("patched", 1, {1200000})};
    summarize_device_run(run);
    EXPECT_EQ(format_ratio_evidence(run),
              "median ratio 1.20x (too few samples for a confidence interval, Mann-Whitney p = "
              "1.00)");
}

TEST(StatsTest, LogHistogramCountsEverySampleInGeometricBins) {
    Histogram h = log_histogram({1, 9.9, 10, 100, 0.5, 5000}, 1, 1000, 3);
    ASSERT_EQ(h.edges.size(), 4u);
    EXPECT_NEAR(h.edges[1], 10, 1e-9);
    EXPECT_NEAR(h.edges[2], 100, 1e-9);
    // [1,10): 1, 9.9 and the clamped 0.5; [10,100): 10; [100,1000]: 100 and the clamped 5000.
    EXPECT_EQ(h.counts, (std::vector<size_t>{3, 1, 2}));
}

TEST(StatsTest, LogTicksAreOneTwoFive) {
    auto ticks = log_ticks(800, 30000);
    EXPECT_EQ(ticks, (std::vector<double>{1000, 2000, 5000, 10000, 20000}));
    EXPECT_TRUE(log_ticks(5, 1).empty());
}

} // namespace
} // namespace ksweep::validate
