// Device files (devices/*.yaml): the shipped ones load and fit their profiles, the registry
// takes every file as an entry, and mistakes are reported with file:line:col.
#include "device/device_models.h"
#include "device/device_registry.h"
#include "device/device_spec.h"
#include "device/registry_table.h"
#include "device/table_device.h"
#include "yaml_error_expect.h"

#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

namespace ksweep::device {
namespace {

using testing::expect_yaml_error;

const std::string kDevices = std::string(KSWEEP_SOURCE_DIR) + "/devices";
const std::string kRegistry = std::string(KSWEEP_SOURCE_DIR) + "/qemu/devices.yaml";

// The smallest file the loader takes; tests add to it.
const std::string kMinimal = R"(driver: chip
description: a chip
subsystem: misc
i2c: {address: 0x20, new_device: chip, framing: register}
registers:
  ID: {address: 0x00, reset: 0x42, access: ro}
guest:
  config: [CONFIG_CHIP=m]
  modules: {directory: drivers/misc, load: [chip]}
  operation: {read: value, expect: "66"}
profile: chip.yaml
)";

DeviceSpec parse(const std::string& yaml) {
    return parse_device_spec(yaml, "d.yaml");
}

void expect_error(const std::string& yaml, const std::string& where, const std::string& what) {
    expect_yaml_error<DeviceSpecError>(parse, "d.yaml", yaml, where, what);
}

TEST(DeviceSpecTest, ShippedFilesCoverThreeSubsystemsAndFitTheirProfiles) {
    std::vector<DeviceSpec> specs = load_device_specs(kDevices);
    ASSERT_GE(specs.size(), 5u);
    std::set<std::string> subsystems;
    for (const auto& spec : specs) {
        SCOPED_TRACE(spec.path);
        subsystems.insert(spec.subsystem);
        DeviceProfile profile = load_device_profile(spec.profile);
        EXPECT_EQ(table_profile_mismatch(spec, profile), "");
        EXPECT_FALSE(spec.config.empty());
        EXPECT_FALSE(spec.operation.expect.empty());
        EXPECT_FALSE(spec.rules.empty()) << "a device without timing is a memory";
    }
    EXPECT_GE(subsystems.size(), 3u);
}

TEST(DeviceSpecTest, Ak8974SaysWhatTheDriverReads) {
    DeviceSpec d = load_device_spec(kDevices + "/ak8974.yaml");
    EXPECT_EQ(d.driver, "ak8974");
    EXPECT_EQ(d.address, 0x0e);
    EXPECT_EQ(d.framing, Framing::register_pointer);
    const RegisterSpec* x = d.find_register("DATA_X");
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->address, 0x10);
    EXPECT_EQ(x->width, 2u);
    EXPECT_FALSE(x->big_endian);
    EXPECT_EQ(x->reset, 0x0123u);
    EXPECT_FALSE(x->writable);
    EXPECT_EQ(d.delay_names(), std::vector<std::string>{"conversion"});
    EXPECT_EQ(d.operation.kind, GuestOperation::Kind::read_attribute);
    EXPECT_EQ(d.operation.target, "iio:device*/in_magn_x_raw");
    EXPECT_EQ(d.operation.label(), "read in_magn_x_raw");
    EXPECT_EQ(d.module_directory, "drivers/iio/magnetometer");
    EXPECT_EQ(d.profile, std::string(KSWEEP_SOURCE_DIR) + "/qemu/profiles/ak8974_default.yaml");
}

// The registry takes each file as an entry of the table model, beside the TPMs.
TEST(DeviceSpecTest, RegistryListsEveryFileBesideTheTpms) {
    DeviceRegistry registry = load_device_registry(kRegistry);
    const DeviceEntry* tpm = registry.find("tpm_i2c_nuvoton");
    ASSERT_NE(tpm, nullptr);
    EXPECT_TRUE(tpm->is_tpm());
    for (const auto& spec : load_device_specs(kDevices)) {
        const DeviceEntry* e = registry.find(spec.driver);
        ASSERT_NE(e, nullptr) << spec.driver;
        EXPECT_FALSE(e->is_tpm());
        EXPECT_EQ(e->model, kTableModel);
        EXPECT_EQ(e->i2c_address, spec.address);
        EXPECT_EQ(e->i2c_device_id, spec.new_device);
        EXPECT_EQ(registry.for_module(spec.modules.front(), spec.module_directory), e);
        EXPECT_EQ(model_mismatch(*e, load_device_profile(e->profile)), "");
    }
    const DeviceEntry* rtc = registry.find("rtc-max6900");
    ASSERT_NE(rtc, nullptr);
    EXPECT_EQ(rtc->benchmark.command, "RTC_SET_TIME");
}

// The README's device list is `ksweep devices`' output, never edited by hand: a new file, a
// changed description or profile shows here until the README is regenerated.
TEST(DeviceSpecTest, ReadmeListsTheDevicesAsTheRegistryDoes) {
    std::ifstream in(std::string(KSWEEP_SOURCE_DIR) + "/README.md");
    std::stringstream text;
    text << in.rdbuf();
    const std::string readme = text.str(), begin = "<!-- ksweep devices: begin -->\n",
                      end = "<!-- ksweep devices: end -->";
    size_t from = readme.find(begin), to = readme.find(end);
    ASSERT_NE(from, std::string::npos) << "README.md has no generated device list";
    ASSERT_NE(to, std::string::npos);
    std::string shown = readme.substr(from + begin.size(), to - from - begin.size());
    std::string generated =
        render_registry_markdown(load_device_registry(kRegistry), KSWEEP_SOURCE_DIR);
    EXPECT_EQ(shown, generated) << "regenerate it: build/src/cli/ksweep devices";
    for (const auto& spec : load_device_specs(kDevices))
        EXPECT_NE(shown.find("devices/" + spec.driver + ".yaml"), std::string::npos) << spec.path;
}

TEST(DeviceSpecTest, MinimalFileLoads) {
    DeviceSpec d = parse(kMinimal);
    EXPECT_EQ(d.registers.size(), 1u);
    EXPECT_TRUE(d.rules.empty());
    EXPECT_EQ(d.profile, "chip.yaml");
}

TEST(DeviceSpecTest, MistakesAreNamedWithTheirPlace) {
    auto with = [](const std::string& from, const std::string& to) {
        std::string yaml = kMinimal;
        yaml.replace(yaml.find(from), from.size(), to);
        return yaml;
    };
    expect_error(with("subsystem: misc\n", ""), "1:1", "needs 'subsystem'");
    expect_error(with("0x20", "0x03"), "4:16", "reserved ranges");
    expect_error(with("framing: register", "framing: spi"), "4:49", "'framing' must be");
    expect_error(with("reset: 0x42", "reset: 0x142"), "6:30", "'reset' of a 1-byte register");
    expect_error(with("access: ro}", "access: ro, width: 2}"), "6:7", "say its byte_order");
    expect_error(with("[CONFIG_CHIP=m]", "[CHIP=m]"), "8:12", "is not CONFIG_NAME=y");
    expect_error(with("read: value", "read: ../x"), "10:14", "is not a path below");
    expect_error(with("profile: chip.yaml\n", "profile: chip.yaml\nextra: 1\n"), "12:1",
                 "unknown key 'extra'");
}

TEST(DeviceSpecTest, SeparateReadAndWriteMeaningsMayShareAnAddress) {
    std::string yaml = kMinimal;
    yaml.insert(yaml.find("guest:"), "  CMD: {address: 0x00, access: wo}\n");
    DeviceSpec d = parse(yaml);
    EXPECT_EQ(d.registers.size(), 2u);
    std::string clash = kMinimal;
    clash.insert(clash.find("guest:"), "  OTHER: {address: 0x00}\n");
    expect_error(clash, "7:10", "overlaps 'ID'");
}

TEST(DeviceSpecTest, RulesNameRegistersCommandsAndDelaysTheFileHas) {
    auto with_rule = [](const std::string& rule) {
        std::string yaml = kMinimal;
        yaml.insert(yaml.find("guest:"), "rules:\n  - " + rule + "\n");
        return yaml;
    };
    DeviceSpec d = parse(with_rule("{when: {read: ID}, after: ready, set: {ID: 0x43}}"));
    ASSERT_EQ(d.rules.size(), 1u);
    EXPECT_EQ(d.rules[0].delay, "ready");
    EXPECT_EQ(d.delay_names(), std::vector<std::string>{"ready"});
    expect_error(with_rule("{when: {read: NOPE}, set: {ID: 1}}"), "8:19", "no register 'NOPE'");
    expect_error(with_rule("{when: {read: ID}}"), "8:5", "needs an action");
    expect_error(with_rule("{when: {command: 0x41}, set: {ID: 1}}"), "8:22", "no such command");
    expect_error(with_rule("{when: {read: ID}, busy: {reads: 0xff}}"), "8:30",
                 "a busy period needs 'after'");
    expect_error(with_rule("{when: {read: ID, bits: 1}, set: {ID: 1}}"), "8:12", "qualify a write");
}

TEST(DeviceSpecTest, CommandFramingNeedsItsCommands) {
    std::string yaml = kMinimal;
    yaml.replace(yaml.find("framing: register"), 17, "framing: command");
    expect_error(yaml, "1:1", "framing: command needs 'commands'");
    yaml.insert(yaml.find("guest:"), "commands:\n  0x41: {read: ID}\n  0x42: {write: NOPE}\n");
    expect_error(yaml, "9:17", "no register 'NOPE'");
}

} // namespace
} // namespace ksweep::device
