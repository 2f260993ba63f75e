// The host's side of the PCR proof and the per-extend summary. Expected values come from an
// independent computation (Python's hashlib over the same digests), not from this code.
#include "guest/guest_stats.h"
#include "guest/pcr_check.h"

#include <gtest/gtest.h>

namespace ksweep::validate {

using namespace ksweep::guest;
namespace {

TEST(Sha256, KnownVector) {
    EXPECT_EQ(to_hex(sha256("abc")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, HexRoundTripAndRejects) {
    auto d = sha256("x");
    EXPECT_EQ(digest_from_hex(to_hex(d)), d);
    EXPECT_FALSE(digest_from_hex("00"));
    EXPECT_FALSE(digest_from_hex(std::string(63, '0') + "g"));
}

TEST(PcrCheck, DigestMatchesTheGuestProgramsLayout) {
    EXPECT_EQ(to_hex(extend_digest(258)),
              "00000102a1a0a3a2adacafaea9a8abaab5b4b7b6b1b0b3b2bdbcbfbeb9b8bbba");
}

TEST(PcrCheck, ChainFromZero) {
    Sha256Digest zero{};
    EXPECT_EQ(expected_pcr(zero, 0), zero);
    EXPECT_EQ(to_hex(expected_pcr(zero, 3)),
              "5f1a208763b558a008df779cf430b2f10ec3cab76375cfbecad07b483420b244");
    EXPECT_EQ(to_hex(expected_pcr(zero, 200)),
              "91097e6df6e2d10724c292af94db2f99e733c5a09bdd282c0935badeeb971f2a");
}

TEST(PcrCheck, PassesAndFails) {
    Sha256Digest zero{};
    auto good = expected_pcr(zero, 5);
    PcrCheck ok = check_pcr(zero, good, 5);
    EXPECT_TRUE(ok.passed);
    EXPECT_TRUE(ok.started_from_zero);
    // One extend lost (or one extra) must not pass.
    EXPECT_FALSE(check_pcr(zero, good, 4).passed);
    EXPECT_FALSE(check_pcr(zero, good, 6).passed);
    PcrCheck bad = check_pcr(zero, expected_pcr(zero, 4), 5);
    EXPECT_NE(bad.message.find("mismatch"), std::string::npos);
    EXPECT_NE(bad.message.find(to_hex(good)), std::string::npos);
}

TEST(PcrCheck, ChainFromANonZeroStart) {
    Sha256Digest start = sha256("start");
    PcrCheck check = check_pcr(start, expected_pcr(start, 2), 2);
    EXPECT_TRUE(check.passed);
    EXPECT_FALSE(check.started_from_zero);
}

std::vector<ExtendSample> samples_us(std::vector<int> us) {
    std::vector<ExtendSample> samples;
    for (size_t i = 0; i < us.size(); ++i)
        samples.push_back({static_cast<std::uint32_t>(i), us[i] * 1000LL, 0});
    return samples;
}

TEST(ExtendSummary, OddCount) {
    auto s = summarize(samples_us({30, 10, 20}));
    EXPECT_EQ(s.count, 3u);
    EXPECT_DOUBLE_EQ(s.median_us, 20);
    EXPECT_DOUBLE_EQ(s.min_us, 10);
    EXPECT_DOUBLE_EQ(s.max_us, 30);
    EXPECT_DOUBLE_EQ(s.p95_us, 30);
    EXPECT_DOUBLE_EQ(s.total_ms, 0.06);
}

TEST(ExtendSummary, EvenCountAndNearestRankP95) {
    std::vector<int> us;
    for (int i = 1; i <= 100; ++i)
        us.push_back(i);
    auto s = summarize(samples_us(us));
    EXPECT_DOUBLE_EQ(s.median_us, 50.5);
    EXPECT_DOUBLE_EQ(s.p95_us, 95);
    EXPECT_DOUBLE_EQ(s.total_ms, 5.05);
}

TEST(ExtendSummary, FailedExtendsAreLeftOut) {
    auto samples = samples_us({10, 20, 1000000});
    samples[2].rc = 0x80000005;
    auto s = summarize(samples);
    EXPECT_EQ(s.count, 2u);
    EXPECT_DOUBLE_EQ(s.max_us, 20);
}

TEST(ExtendSummary, Empty) {
    EXPECT_EQ(summarize({}).count, 0u);
}

} // namespace
} // namespace ksweep::validate
