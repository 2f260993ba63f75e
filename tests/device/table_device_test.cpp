// The table model against the shipped device files, driven as their drivers drive them (the
// messages of ak8974.c, srf08.c, hmc6352.c, rtc-max6900.c), on a manual clock: the timed rules,
// the busy periods, clear-on-read and queued reads, the requirements, and the driver's two-poll
// budget against a slow conversion (the negative case L4 shows on a real kernel).
#include "device/device_profile.h"
#include "device/device_spec.h"
#include "device/stats_device.h"
#include "device/table_device.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace ksweep::device {
namespace {

using namespace std::chrono_literals;

const std::string kSource = KSWEEP_SOURCE_DIR;

struct Chip {
    explicit Chip(const std::string& file, const std::string& profile_file = "")
        : spec(load_device_spec(kSource + "/devices/" + file)),
          profile(load_device_profile(
              profile_file.empty() ? spec.profile : kSource + "/qemu/profiles/" + profile_file)),
          device(clock, spec, profile, [this](const std::string& line) { log += line + "\n"; }) {}

    // [reg, data...]: a register write; [reg] then a read: a register read (regmap, SMBus).
    bool write(std::vector<uint8_t> bytes) { return device.write(bytes); }
    std::vector<uint8_t> read_reg(uint8_t reg, size_t n) {
        std::vector<uint8_t> out(n);
        uint8_t pointer[1] = {reg};
        EXPECT_TRUE(device.write(pointer));
        EXPECT_TRUE(device.read(out));
        return out;
    }

    ManualClock clock;
    DeviceSpec spec;
    DeviceProfile profile;
    std::string log;
    TableDevice device;
};

TEST(TableDeviceTest, Ak8974ProbeSelfTestReadsTheSequence) {
    Chip c("ak8974.yaml");
    EXPECT_EQ(c.read_reg(0x0f, 1)[0], 0x48); // WHOAMI
    EXPECT_EQ(c.read_reg(0x0c, 1)[0], 0x55); // SELFTEST idle
    // regmap_update_bits(CTRL3, SELFTEST, SELFTEST): read, then write.
    uint8_t ctrl3 = c.read_reg(0x1d, 1)[0];
    EXPECT_TRUE(c.write({0x1d, static_cast<uint8_t>(ctrl3 | 0x10)}));
    c.clock.advance(1ms);
    EXPECT_EQ(c.read_reg(0x0c, 1)[0], 0xaa);
    EXPECT_EQ(c.read_reg(0x0c, 1)[0], 0x55);
    EXPECT_EQ(*c.device.value("CTRL3") & 0x10, 0u) << "the self-test bit clears itself";
    EXPECT_EQ(c.device.stats().protocol_errors, 0u) << c.log;
}

// ak8974_measure_channel(): INT_CLEAR, CTRL3 |= FORCE, then poll STATUS for DRDY, INT_SRC, six
// data bytes. Returns the polls it took (0: gave up after `polls`).
int measure(Chip& c, int polls, std::chrono::microseconds sleep, std::vector<uint8_t>& data) {
    c.read_reg(0x1a, 1);
    uint8_t ctrl3 = c.read_reg(0x1d, 1)[0];
    if (!(ctrl3 & 0x40))
        c.write({0x1d, static_cast<uint8_t>(ctrl3 | 0x40)});
    for (int i = 1; i <= polls; ++i) {
        c.clock.advance(sleep);
        if (c.read_reg(0x18, 1)[0] & 0x40) {
            c.read_reg(0x16, 1);
            data = c.read_reg(0x10, 6);
            return i;
        }
    }
    return 0;
}

TEST(TableDeviceTest, Ak8974MeasurementSetsDrdyAfterTheConversionAndItsReadClearsIt) {
    Chip c("ak8974.yaml"); // conversion 2.3-2.7 ms
    std::vector<uint8_t> data;
    EXPECT_EQ(measure(c, 2, 3ms, data), 1);
    EXPECT_EQ(data, (std::vector<uint8_t>{0x23, 0x01, 0x85, 0xff, 0x40, 0x00})) << "little-endian";
    EXPECT_EQ(*c.device.value("STATUS") & 0x40, 0u) << "reading the data cleared DRDY";
    EXPECT_EQ(*c.device.value("CTRL3") & 0x40, 0u) << "FORCE cleared itself";
    // A second measurement works the same way (regmap writes FORCE again).
    EXPECT_EQ(measure(c, 2, 3ms, data), 1);
    // Polled too early, the first poll finds no DRDY, the second does.
    EXPECT_EQ(measure(c, 2, 2ms, data), 2);
}

// The negative case in numbers: two polls of msleep(3) as 6.1 sleeps them at HZ=250 (4-8 ms,
// then nearly 8: 6 ms each is their mean) cover the slow conversion; two of
// usleep_range(3000, 3250) do not.
TEST(TableDeviceTest, Ak8974SlowConversionOutlastsTwoShortPollsOnly) {
    std::vector<uint8_t> data;
    for (int run = 0; run < 20; ++run) {
        Chip naive("ak8974.yaml", "ak8974_slow_conversion.yaml");
        for (int i = 0; i < run; ++i) // a different draw of the spread each run
            measure(naive, 3, 4000us, data);
        EXPECT_EQ(measure(naive, 2, 3250us, data), 0) << "usleep_range(3000, 3250) x2";
        Chip baseline("ak8974.yaml", "ak8974_slow_conversion.yaml");
        for (int i = 0; i < run; ++i)
            measure(baseline, 3, 4000us, data);
        EXPECT_EQ(measure(baseline, 2, 6000us, data), 2) << "msleep(3) x2 at HZ=250 on 6.1";
    }
}

TEST(TableDeviceTest, Srf08ReadsFfWhileRangingThenRevisionAndEcho) {
    Chip c("srf08.yaml");  // ranging 44-48 ms
    c.write({0x02, 0x8b}); // range, as the probe writes it
    c.write({0x01, 0x1f}); // gain
    EXPECT_EQ(c.read_reg(0x00, 1)[0], 0x06) << "revision while idle";
    c.write({0x00, 0x51}); // ranging in cm
    c.clock.advance(36ms);
    EXPECT_EQ(c.read_reg(0x00, 1)[0], 0xff) << "busy";
    EXPECT_TRUE(c.device.busy());
    c.clock.advance(13ms);
    EXPECT_EQ(c.read_reg(0x00, 1)[0], 0x06);
    EXPECT_EQ(c.read_reg(0x02, 2), (std::vector<uint8_t>{0x00, 0x96})) << "150 cm, big-endian";
    EXPECT_EQ(c.read_reg(0x01, 1)[0], 0x80) << "a read of 1 is the light sensor, not the gain";
    EXPECT_EQ(c.device.stats().busy_accesses, 2u) << "the pointer write and the read";
}

TEST(TableDeviceTest, Hmc6352HeadingIsStaleUntilComputed) {
    Chip c("hmc6352.yaml"); // heading 5.5-6.5 ms after 'A'
    std::vector<uint8_t> heading(2);
    EXPECT_TRUE(c.write({'A'}));
    c.clock.advance(3ms);
    EXPECT_TRUE(c.device.read(heading));
    EXPECT_EQ(heading, (std::vector<uint8_t>{0, 0})) << "read too early: the stale heading";
    EXPECT_TRUE(c.write({'A'}));
    c.clock.advance(10ms);
    EXPECT_TRUE(c.device.read(heading));
    EXPECT_EQ(heading, (std::vector<uint8_t>{0x0d, 0x7a})) << "3450: 345.0 degrees";
    EXPECT_TRUE(c.write({'Q'}));
    EXPECT_EQ(c.device.stats().protocol_errors, 1u) << "an unknown command is logged";
}

// max6900_rtc_set_time(): clear write protection, century, 3 ms, burst of 8, 3 ms; then the
// four-message read of max6900_rtc_read_time().
TEST(TableDeviceTest, Max6900StoresTheTimeAndNacksDuringItsWriteCycle) {
    Chip c("rtc-max6900.yaml", "max6900_strict_timing.yaml");
    EXPECT_TRUE(c.write({0x8e, 0x00}));
    EXPECT_TRUE(c.write({0x92, 0x20}));
    EXPECT_FALSE(c.write({0xbe, 0, 0, 0, 0, 0, 0, 0, 0})) << "busy: NACKed";
    c.clock.advance(3ms);
    EXPECT_TRUE(c.write({0xbe, 0x00, 0x53, 0x06, 0x02, 0x12, 0x03, 0x26, 0x80}));
    c.clock.advance(3ms);
    std::vector<uint8_t> regs(8), century(1);
    EXPECT_TRUE(c.write({0xbf}));
    EXPECT_TRUE(c.device.read(regs));
    EXPECT_TRUE(c.write({0x93}));
    EXPECT_TRUE(c.device.read(century));
    EXPECT_EQ(regs, (std::vector<uint8_t>{0x00, 0x53, 0x06, 0x02, 0x12, 0x03, 0x26, 0x80}));
    EXPECT_EQ(century[0], 0x20);
    EXPECT_EQ(c.device.stats().nacks, 1u);
    EXPECT_EQ(c.device.stats().rules_fired, 2u) << "the century and the second burst";
    // The early burst came 0 us after the century's write cycle began: min_write_idle broken.
    EXPECT_EQ(c.device.stats().write_idle_violations, 1u) << c.log;
    EXPECT_NE(c.log.find("min_write_idle_us 2500"), std::string::npos) << c.log;
}

TEST(TableDeviceTest, PollsOfAPendingRegisterFasterThanTheProfileAllowsAreCounted) {
    Chip c("ak8974.yaml");
    c.profile.requirements.min_poll_interval = 2ms;
    c.write({0x1d, 0x40});
    c.clock.advance(1ms);
    c.read_reg(0x18, 1);
    c.clock.advance(1ms); // 1 ms after the last poll: too soon
    c.read_reg(0x18, 1);
    EXPECT_EQ(c.device.stats().poll_interval_violations, 1u) << c.log;
    c.clock.advance(2ms); // done: no longer pending, nothing to judge
    c.read_reg(0x18, 1);
    c.read_reg(0x18, 1);
    EXPECT_EQ(c.device.stats().poll_interval_violations, 1u);
}

TEST(TableDeviceTest, StatsJsonNamesTheRequirementCountersAndTheStatsDeviceReadsThem) {
    Chip c("rtc-max6900.yaml", "max6900_strict_timing.yaml");
    c.write({0x92, 0x20});
    c.write({0x93});
    TransportStats transport;
    std::string json = format_table_stats_json(c.profile.name, c.device.stats(), transport);
    auto stats = nlohmann::json::parse(json);
    EXPECT_EQ(stats["write_idle_violations"], 1);
    EXPECT_EQ(stats["violations"], 1);
    EXPECT_EQ(stats["messages"], 2);
    StatsDevice counters([&] { return json; });
    std::vector<uint8_t> out(200);
    uint8_t rewind[1] = {0};
    EXPECT_TRUE(counters.write(rewind));
    EXPECT_TRUE(counters.read(out));
    std::string text(out.begin(), out.end());
    EXPECT_EQ(text.rfind("messages=2 violations=1 poll_interval_violations=0 "
                         "write_idle_violations=1 ",
                         0),
              0u)
        << text;
    EXPECT_NE(text.find('\n'), std::string::npos);
    EXPECT_EQ(text.back(), '\0') << "NULs after the text";
}

// clear_on_read: a status register whose event bit a read returns once, then clears; its other
// bits stay. No shipped device needs it, so the file is written here.
TEST(TableDeviceTest, ClearOnReadBitsAreReturnedOnceThenCleared) {
    const DeviceSpec spec = parse_device_spec(R"(driver: chip
description: a chip with an event bit cleared by reading it
subsystem: misc
i2c: {address: 0x20, new_device: chip, framing: register}
registers:
  CTRL:   {address: 0x00, reset: 0x00}
  INT:    {address: 0x01, reset: 0x01, access: ro, clear_on_read: 0x40}
rules:
  - when: {write: CTRL, bits: 0x80}
    after: event
    set_bits: {INT: 0x40}
guest:
  config: [CONFIG_CHIP=m]
  modules: {directory: drivers/misc, load: [chip]}
  operation: {read: value, expect: "1"}
profile: chip.yaml
)",
                                              "chip.yaml");
    DeviceProfile profile;
    profile.name = "chip";
    profile.delays["event"] = {2ms, {}};
    ASSERT_EQ(table_profile_mismatch(spec, profile), "");
    ManualClock clock;
    TableDevice device(clock, spec, profile, [](const std::string&) {});
    const auto read_int = [&device] {
        uint8_t pointer[1] = {0x01}, value[1] = {0};
        EXPECT_TRUE(device.write(pointer));
        EXPECT_TRUE(device.read(value));
        return value[0];
    };
    EXPECT_EQ(read_int(), 0x01) << "no event yet: nothing to clear";
    uint8_t start[2] = {0x00, 0x80};
    EXPECT_TRUE(device.write(start));
    clock.advance(1ms);
    EXPECT_EQ(read_int(), 0x01) << "the event comes after 2 ms";
    clock.advance(1ms);
    EXPECT_EQ(read_int(), 0x41) << "the event, once";
    EXPECT_EQ(read_int(), 0x01) << "read: cleared; bit 0 is not clear-on-read and stays";
    EXPECT_EQ(*device.value("INT"), 0x01u);
}

TEST(TableDeviceTest, AProfileWithoutTheFilesDelayIsRefused) {
    DeviceSpec spec = load_device_spec(kSource + "/devices/ak8974.yaml");
    DeviceProfile profile = load_device_profile(kSource + "/qemu/profiles/hmc6352_default.yaml");
    EXPECT_NE(table_profile_mismatch(spec, profile).find("has no delay 'conversion'"),
              std::string::npos);
    profile = load_device_profile(kSource + "/qemu/profiles/nuvoton_strict_timing.yaml");
    profile.delays["conversion"] = {1ms, {}};
    EXPECT_NE(table_profile_mismatch(spec, profile).find("states min_status_gap_us"),
              std::string::npos);
}

} // namespace
} // namespace ksweep::device
