// Reading ksweep-tpmd's statistics file: the counters the guest run reports.
#include "guest/guest_device_stats.h"

#include <gtest/gtest.h>

namespace ksweep::validate {

using namespace ksweep::guest;
namespace {

// As ksweep-tpmd wrote it after a 5-extend boot (trimmed).
constexpr const char* kStats = R"({
  "profile": "nuvoton_strict_timing",
  "commands": 17,
  "commands_by_code": {
    "0x0000013d": 1,
    "TPM2_PCR_Read": 2,
    "TPM2_PCR_Extend": 5
  },
  "violations": 12,
  "status_gap_violations": 7,
  "nacks": 3,
  "protocol_errors": 1,
  "malformed_requests": 0
})";

TEST(DeviceStats, ReadsTheCounters) {
    auto c = parse_device_stats(kStats, "TPM2_PCR_Extend");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->commands, 17);
    EXPECT_EQ(c->extends, 5);
    EXPECT_EQ(c->violations, 12);
    EXPECT_EQ(c->nacks, 3);
    EXPECT_EQ(c->protocol_errors, 1);
    EXPECT_EQ(c->summary(),
              "12 timing violations, 3 NACKs, 1 protocol errors, 0 malformed requests");
}

TEST(DeviceStats, NoStatsIsNotZeroViolations) {
    EXPECT_FALSE(parse_device_stats("", "TPM2_PCR_Extend"));
    EXPECT_FALSE(parse_device_stats("{\"commands\": ", "TPM2_PCR_Extend"));
    EXPECT_FALSE(parse_device_stats("[1, 2]", "TPM2_PCR_Extend"));
}

} // namespace
} // namespace ksweep::validate
