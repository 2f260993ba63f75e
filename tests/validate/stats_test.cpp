// Statistics of L4 boots: pooled summaries, the median ratio and slowdown verdict, histograms.
#include "validate/stats.h"

#include <gtest/gtest.h>

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

TEST(StatsTest, RatioAndSlowdown) {
    DeviceRun run;
    run.boots = {boot("baseline", 1, {24000000, 24000000}), boot("patched", 1, {2400000})};
    summarize_device_run(run);
    EXPECT_NEAR(run.median_ratio, 0.1, 1e-12);
    EXPECT_FALSE(is_slowdown(run));

    run.boots = {boot("baseline", 1, {1000000}), boot("patched", 1, {1200000})};
    summarize_device_run(run);
    EXPECT_TRUE(is_slowdown(run));

    run.boots = {boot("baseline", 1, {1000000}), boot("patched", 1, {1050000})};
    summarize_device_run(run);
    EXPECT_FALSE(is_slowdown(run)) << "5 % is within the noise tolerance";
}

TEST(StatsTest, NoPatchedSamplesGiveNoRatio) {
    DeviceRun run;
    run.boots = {boot("baseline", 1, {1000000})};
    summarize_device_run(run);
    EXPECT_EQ(run.median_ratio, 0);
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
