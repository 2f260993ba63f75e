// Smoke boots of the device files (devices/*.yaml) on the 6.1 guest: Debian's unmodified
// rtc-max6900 against the table model, RTC_SET_TIME through /dev/rtcN with every time read
// back and checked, its strict profile's requirement kept; and the cases that make L4 matter:
// a poll loop whose sleep a naive patch shortens, its tries kept (derived from the tree at run
// time, tests/negative/naive_patch.sh), against a part slower than the patched loop waits:
// ak8974's two DRDY polls and srf08's four ranging reads. The shipped driver reads its value,
// the naive patch fails with the driver's own error, named in one line. The full matrix (every
// device, HZ 250 and 1000, 6.1 and 6.12) is bench/devices.sh.
#include "core/file_io.h"
#include "core/process.h"
#include "guest/guest_benchmark.h"
#include "require_env.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace ksweep::guest {
namespace {

class DeviceGuest : public ::testing::Test {
  protected:
    void SetUp() override {
        try {
            env_ = GuestEnvironment::load();
        } catch (const std::exception& e) {
            KSWEEP_SKIP_OR_FAIL(e.what());
        }
    }
    void TearDown() override {
        if (HasFailure()) {
            dir_.release();
            std::printf("run directory kept: %s\n", dir_.path().c_str());
        }
    }
    GuestBenchmarkResult boot(const std::string& device, const std::string& profile,
                              const std::string& driver_source, const std::string& name) {
        GuestBenchmarkOptions options;
        options.device = device;
        options.extends = 3;
        options.hz = 250; // the slow AK8974 is an HZ=250 case (its profile says why)
        options.driver_source = driver_source;
        if (!profile.empty())
            options.profile = std::string(KSWEEP_SOURCE_DIR) + "/qemu/profiles/" + profile;
        options.run_dir = (dir_.path() / name).string();
        return run_guest_benchmark(options);
    }

    GuestEnvironment env_;
    TempDir dir_{"ksweep-device-guest"};
};

TEST_F(DeviceGuest, Max6900TakesTheTimeThroughRtcSetTimeAndReturnsIt) {
    GuestBenchmarkResult result = boot("rtc-max6900", "max6900_strict_timing.yaml", "", "max6900");
    ASSERT_TRUE(result.error.empty()) << result.error;
    const GuestRunResult& run = result.run;
    EXPECT_EQ(run.outcome, GuestOutcome::passed) << run.message;
    EXPECT_TRUE(run.report.operation);
    EXPECT_EQ(run.report.values, std::vector<std::string>(3, "2026-12-02T06:53:00"));
    ASSERT_TRUE(run.values);
    EXPECT_TRUE(run.values->passed) << run.values->message;
    EXPECT_FALSE(run.pcr) << "no PCR for a device file";
    ASSERT_TRUE(run.device) << run.stats;
    // msleep(3) after each write cycle: 2.5 ms of idle bus kept, nothing NACKed.
    EXPECT_EQ(run.device->violations, 0) << run.stats;
    EXPECT_EQ(run.device->counter("write_idle_violations"), 0);
    EXPECT_EQ(run.device->nacks, 0) << run.stats;
    EXPECT_EQ(run.device->protocol_errors, 0) << run.stats;
    EXPECT_GT(run.device->counter("rules_fired"), 0) << "the write cycles ran";
}

// The derived naive driver: the tree's FILE with its poll sleep rewritten alone (CASE of
// tests/negative/naive_patch.sh).
std::string naive_driver(const std::string& naive_case, const std::string& file,
                         const std::string& tree, const fs::path& dir) {
    CommandResult made =
        run_command({std::string(KSWEEP_SOURCE_DIR) + "/tests/negative/naive_patch.sh", naive_case,
                     tree, (dir / "patch").string()},
                    "", std::chrono::seconds(120));
    EXPECT_EQ(made.status, 0) << made.output;
    std::string mail;
    for (const auto& e : fs::directory_iterator(dir / "patch"))
        mail = e.path().string();
    std::string out = (dir / fs::path(file).filename()).string();
    CommandResult applied = run_command(
        {"sh", "-c", "patch -s -p1 -o '" + out + "' '" + tree + "/" + file + "' < '" + mail + "'"},
        "", std::chrono::seconds(60));
    EXPECT_EQ(applied.status, 0) << applied.output;
    return out;
}

// A boot of a naive driver failed in the guest, its first line naming the errno and the driver's
// own words.
void expect_failure_line(const GuestBenchmarkResult& naive, const std::string& error,
                         const std::string& driver_says) {
    ASSERT_TRUE(naive.error.empty()) << naive.error;
    EXPECT_EQ(naive.run.outcome, GuestOutcome::guest_failed) << naive.run.message;
    const std::string line = naive.run.message.substr(0, naive.run.message.find('\n'));
    EXPECT_NE(line.find(error), std::string::npos) << line;
    EXPECT_NE(line.find(driver_says), std::string::npos) << line;
}

TEST_F(DeviceGuest, Ak8974SlowConversionPassesTheDriverAndFailsTheNaivePatchByItsOwnError) {
    GuestBenchmarkResult shipped = boot("ak8974", "ak8974_slow_conversion.yaml", "", "baseline");
    ASSERT_TRUE(shipped.error.empty()) << shipped.error;
    EXPECT_EQ(shipped.run.outcome, GuestOutcome::passed) << shipped.run.message;
    const auto& modules = shipped.run.report.modules;
    auto regmap = std::find(modules.begin(), modules.end(), "regmap-i2c.ko");
    auto driver = std::find(modules.begin(), modules.end(), "ak8974.ko");
    ASSERT_NE(driver, modules.end());
    EXPECT_LT(regmap, driver) << "the guest kernel's regmap-i2c, from ak8974.ko's depends=";

    expect_failure_line(boot("ak8974", "ak8974_slow_conversion.yaml",
                             naive_driver("ak8974", "drivers/iio/magnetometer/ak8974.c", env_.tree,
                                          dir_.path() / "ak8974-source"),
                             "naive"),
                        "errno 110 (Connection timed out)", "timeout waiting for DRDY");
}

// The second such case: srf08's four reads of the revision, msleep(5) apart, against a chip that
// ranges for 69-71 ms (qemu/profiles/srf08_slow_ranging.yaml: the margins at HZ=250).
TEST_F(DeviceGuest, Srf08SlowRangingPassesTheDriverAndFailsTheNaivePatchByItsOwnError) {
    GuestBenchmarkResult shipped = boot("srf08", "srf08_slow_ranging.yaml", "", "srf08");
    ASSERT_TRUE(shipped.error.empty()) << shipped.error;
    EXPECT_EQ(shipped.run.outcome, GuestOutcome::passed) << shipped.run.message;
    ASSERT_TRUE(shipped.run.values);
    EXPECT_TRUE(shipped.run.values->passed) << shipped.run.values->message;

    expect_failure_line(boot("srf08", "srf08_slow_ranging.yaml",
                             naive_driver("srf08", "drivers/iio/proximity/srf08.c", env_.tree,
                                          dir_.path() / "srf08-source"),
                             "srf08-naive"),
                        "errno 5 (Input/output error)", "device not ready");
}

} // namespace
} // namespace ksweep::guest
