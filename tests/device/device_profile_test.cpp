// Device profiles: the shipped ones load, and mistakes are reported with file:line:col.
#include "device/device_profile.h"
#include "yaml_error_expect.h"

#include <gtest/gtest.h>

namespace ksweep::device {
namespace {

using namespace std::chrono_literals;

std::string profile_path(const char* name) {
    return std::string(KSWEEP_SOURCE_DIR) + "/qemu/profiles/" + name;
}

TEST(DeviceProfileTest, DefaultProfileMakesExtendsTakeMilliseconds) {
    auto p = load_device_profile(profile_path("nuvoton_npct_default.yaml"));
    EXPECT_EQ(p.name, "nuvoton_npct_default");
    EXPECT_GE(p.execution_time(*tpm_command_code("TPM2_PCR_Extend")), 1ms);
    EXPECT_EQ(p.execution_time(0x12345), p.default_command_time);
    EXPECT_EQ(p.bus_byte_time, 22500ns);
    EXPECT_FALSE(p.requirements.min_status_gap);
    EXPECT_FALSE(p.requirements.min_poll_interval);
}

TEST(DeviceProfileTest, StrictProfileSeparatesMsleepFromUsleepRange) {
    auto p = load_device_profile(profile_path("nuvoton_strict_timing.yaml"));
    ASSERT_TRUE(p.requirements.min_status_gap);
    ASSERT_TRUE(p.requirements.min_poll_interval);
    // msleep(1..2) at HZ=250 sleeps at least 8 ms; usleep_range(2000, 2300) at most ~2.6 ms.
    EXPECT_LE(*p.requirements.min_status_gap, 8ms);
    EXPECT_GT(*p.requirements.min_status_gap, 3ms);
    EXPECT_LE(*p.requirements.min_poll_interval, 8ms);
    EXPECT_GT(*p.requirements.min_poll_interval, 3ms);
}

// The ST33ZP24 profiles: the chip takes long enough to get ready that the driver's
// wait_for_stat() sleeps, and the strict one's interval falls between the two sleeps.
TEST(DeviceProfileTest, St33zp24ProfilesMakeTheDriverWaitAndSeparateTheSleeps) {
    auto p = load_device_profile(profile_path("st33zp24_default.yaml"));
    EXPECT_GE(p.command_ready_time, 1ms);
    EXPECT_GE(p.execution_time(*tpm_command_code("TPM_Extend")), 1ms);
    EXPECT_TRUE(stated_requirements(p.requirements).empty());
    auto strict = load_device_profile(profile_path("st33zp24_strict_timing.yaml"));
    EXPECT_EQ(stated_requirements(strict.requirements),
              std::vector<Requirement>{Requirement::min_ready_poll_interval});
    // msleep(5) at HZ=250 on 6.1 sleeps at least 8 ms; usleep_range(5000, 5300) about 5.5 ms.
    EXPECT_LE(*strict.requirements.min_ready_poll_interval, 8ms);
    EXPECT_GT(*strict.requirements.min_ready_poll_interval, 6ms);
    EXPECT_EQ(strict.command_ready_time, p.command_ready_time);
}

TEST(DeviceProfileTest, CommandsByNameOrNumber) {
    auto p = parse_device_profile("name: x\ncommands:\n  default_us: 10\n  0x17b: 20\n"
                                  "  TPM2_PCR_Extend: 2.5\n",
                                  "p.yaml");
    EXPECT_EQ(p.execution_time(0x17b), 20us);
    EXPECT_EQ(p.execution_time(0x182), 2500ns);
    EXPECT_EQ(p.execution_time(0x144), 10us);
}

TEST(DeviceProfileTest, Tpm12OrdinalsByName) {
    auto p = parse_device_profile("name: x\ncommands:\n  default_us: 10\n  TPM_Extend: 3000\n"
                                  "  TPM_ContinueSelfTest: 20000\n",
                                  "p.yaml");
    EXPECT_EQ(p.execution_time(0x14), 3ms);
    EXPECT_EQ(p.execution_time(0x53), 20ms);
    EXPECT_EQ(tpm_command_name(0x14), "TPM_Extend");
    EXPECT_EQ(tpm_command_name(0x182), "TPM2_PCR_Extend");
    EXPECT_EQ(tpm_command_name(0x12345), "0x00012345");
}

TEST(DeviceProfileTest, StatedRequirementsInTableOrder) {
    auto p = load_device_profile(profile_path("nuvoton_strict_timing.yaml"));
    EXPECT_EQ(
        stated_requirements(p.requirements),
        (std::vector<Requirement>{Requirement::min_status_gap, Requirement::min_poll_interval}));
    EXPECT_TRUE(stated_requirements(TimingRequirements{}).empty());
    EXPECT_STREQ(requirement_info(Requirement::min_poll_interval).counter,
                 "poll_interval_violations");
}

void expect_error(const std::string& yaml, const std::string& where, const std::string& what) {
    testing::expect_yaml_error<ProfileError>(
        [](const std::string& text) { parse_device_profile(text, "p.yaml"); }, "p.yaml", yaml,
        where, what);
}

TEST(DeviceProfileTest, ErrorsPointAtTheProblem) {
    expect_error("name: x\ncommands:\n  default_us: 1\n  TPM2_Nope: 3\n", "4:3", "TPM2_Nope");
    expect_error("name: x\ncommands:\n  default_us: -1\n", "3:15", "between");
    expect_error("name: x\ncommands:\n  default_us: soon\n", "3:15", "microseconds");
    expect_error("name: x\ncommands:\n  TPM2_Startup: 3\n", "3:3", "default_us");
    expect_error("name: x\nbus:\n  speed: 4\ncommands:\n  default_us: 1\n", "3:3",
                 "unknown key 'speed'");
    expect_error("name: x\nchip:\n  burst_count: 4\ncommands:\n  default_us: 1\n", "3:16",
                 "burst_count");
    expect_error("name: x\ncommands: [1]\n", "2:11", "mapping");
    expect_error("name: [x\n", "2:1", "flow");
    expect_error("commands:\n  default_us: 1\n", "1:1", "needs 'name'");
    expect_error("name: x\ncommands:\n  default_us: 1\nrequirements:\n  min_nap_us: 3\n", "5:3",
                 "unknown key 'min_nap_us'");
}

TEST(DeviceProfileTest, MissingFileIsAClearError) {
    EXPECT_THROW(load_device_profile("/nonexistent/profile.yaml"), ProfileError);
}

} // namespace
} // namespace ksweep::device
