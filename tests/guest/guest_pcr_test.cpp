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
    auto bytes = bytes_from_hex(to_hex(d));
    ASSERT_TRUE(bytes);
    EXPECT_TRUE(std::equal(bytes->begin(), bytes->end(), d.begin(), d.end()));
    EXPECT_EQ(bytes_from_hex("00A0"), (Bytes{0x00, 0xa0}));
    EXPECT_FALSE(bytes_from_hex("0"));
    EXPECT_FALSE(bytes_from_hex(std::string(63, '0') + "g"));
}

TEST(DigestBytes, KnownVectorsAndAnUnknownName) {
    const Bytes abc = {'a', 'b', 'c'};
    EXPECT_EQ(to_hex(digest_bytes("sha1", abc)), "a9993e364706816aba3e25717850c26c9cd0d89d");
    EXPECT_EQ(to_hex(digest_bytes("sha256", abc)), to_hex(sha256("abc")));
    EXPECT_THROW(digest_bytes("sha0", abc), std::invalid_argument);
}

TEST(PcrCheck, DigestMatchesTheGuestProgramsLayout) {
    EXPECT_EQ(to_hex(extend_digest(258, 32)),
              "00000102a1a0a3a2adacafaea9a8abaab5b4b7b6b1b0b3b2bdbcbfbeb9b8bbba");
    EXPECT_EQ(to_hex(extend_digest(258, 20)), "00000102a1a0a3a2adacafaea9a8abaab5b4b7b6");
}

TEST(PcrCheck, ChainFromZero) {
    Bytes zero(32);
    EXPECT_EQ(expected_pcr("sha256", zero, 0), zero);
    EXPECT_EQ(to_hex(expected_pcr("sha256", zero, 3)),
              "5f1a208763b558a008df779cf430b2f10ec3cab76375cfbecad07b483420b244");
    EXPECT_EQ(to_hex(expected_pcr("sha256", zero, 200)),
              "91097e6df6e2d10724c292af94db2f99e733c5a09bdd282c0935badeeb971f2a");
}

// TPM 1.2's SHA-1 PCRs (the ST33ZP24 device): the same chain, 20-byte digests.
TEST(PcrCheck, Sha1ChainFromZero) {
    Bytes zero(20);
    EXPECT_EQ(to_hex(expected_pcr("sha1", zero, 3)), "40acc0d390dff6766cee862ff7577f612a22baa5");
    EXPECT_EQ(to_hex(expected_pcr("sha1", zero, 200)), "0f73dd1bb1a08daf49f28bc365a8ed891e6bf70b");
    EXPECT_TRUE(check_pcr("sha1", zero, expected_pcr("sha1", zero, 7), 7).passed);
    EXPECT_FALSE(check_pcr("sha1", zero, expected_pcr("sha256", Bytes(32), 7), 7).passed);
    EXPECT_EQ(pcr_digest_size("sha1"), 20u);
    EXPECT_THROW(pcr_digest_size("md5"), std::invalid_argument);
}

TEST(PcrCheck, PassesAndFails) {
    Bytes zero(32);
    auto good = expected_pcr("sha256", zero, 5);
    PcrCheck ok = check_pcr("sha256", zero, good, 5);
    EXPECT_TRUE(ok.passed);
    EXPECT_TRUE(ok.started_from_zero);
    // One extend lost (or one extra) must not pass.
    EXPECT_FALSE(check_pcr("sha256", zero, good, 4).passed);
    EXPECT_FALSE(check_pcr("sha256", zero, good, 6).passed);
    PcrCheck bad = check_pcr("sha256", zero, expected_pcr("sha256", zero, 4), 5);
    EXPECT_NE(bad.message.find("mismatch"), std::string::npos);
    EXPECT_NE(bad.message.find(to_hex(good)), std::string::npos);
}

TEST(PcrCheck, ChainFromANonZeroStart) {
    auto digest = sha256("start");
    Bytes start(digest.begin(), digest.end());
    PcrCheck check = check_pcr("sha256", start, expected_pcr("sha256", start, 2), 2);
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
