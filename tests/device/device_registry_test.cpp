// The device registry: the shipped one loads, every entry fits its model class and profiles,
// and mistakes are reported with file:line:col.
#include "device/device_models.h"
#include "device/device_registry.h"
#include "yaml_error_expect.h"

#include <gtest/gtest.h>

namespace ksweep::device {
namespace {

const std::string kRegistry = std::string(KSWEEP_SOURCE_DIR) + "/qemu/devices.yaml";

TEST(DeviceRegistryTest, ShippedRegistryFitsItsModelsAndProfiles) {
    DeviceRegistry registry = load_device_registry(kRegistry);
    ASSERT_FALSE(registry.entries().empty());
    for (const auto& entry : registry.entries()) {
        SCOPED_TRACE(entry.driver);
        if (entry.is_tpm()) {
            EXPECT_NE(find_model_class(entry.model), nullptr);
        }
        DeviceProfile profile = load_device_profile(entry.profile);
        EXPECT_EQ(model_mismatch(entry, profile), "");
        EXPECT_FALSE(entry.modules.empty());
    }
}

TEST(DeviceRegistryTest, NuvotonEntrySaysWhatEveryoneDoes) {
    DeviceRegistry registry = load_device_registry(kRegistry);
    const DeviceEntry* nuvoton = registry.find("tpm_i2c_nuvoton");
    ASSERT_NE(nuvoton, nullptr);
    EXPECT_EQ(nuvoton->model, "nuvoton");
    EXPECT_EQ(nuvoton->tpm, TpmFamily::tpm20);
    EXPECT_EQ(nuvoton->i2c_address, 0x2e);
    EXPECT_EQ(nuvoton->module_directory, "drivers/char/tpm");
    EXPECT_EQ(nuvoton->modules, std::vector<std::string>{"tpm_i2c_nuvoton"});
    EXPECT_EQ(nuvoton->i2c_device_id, "tpm2_i2c_nuvoton");
    EXPECT_EQ(nuvoton->benchmark.command, "TPM2_PCR_Extend");
    EXPECT_EQ(nuvoton->benchmark.pcr_bank, "sha256");
    // Relative to the registry: the same path the validation report always named.
    EXPECT_EQ(nuvoton->profile,
              std::string(KSWEEP_SOURCE_DIR) + "/qemu/profiles/nuvoton_npct_default.yaml");
    EXPECT_EQ(nuvoton->source_path, kRegistry + ":31");
}

// Two modules from a subdirectory, core first; TPM 1.2 with the SHA-1 benchmark.
TEST(DeviceRegistryTest, St33zp24EntryLoadsCoreThenI2cModule) {
    DeviceRegistry registry = load_device_registry(kRegistry);
    const DeviceEntry* st33 = registry.find("tpm_st33zp24_i2c");
    ASSERT_NE(st33, nullptr);
    EXPECT_EQ(st33->model, "st33zp24_i2c");
    EXPECT_EQ(st33->tpm, TpmFamily::tpm12);
    EXPECT_EQ(st33->i2c_address, 0x13);
    EXPECT_EQ(st33->module_directory, "drivers/char/tpm/st33zp24");
    EXPECT_EQ(st33->modules, (std::vector<std::string>{"tpm_st33zp24", "tpm_st33zp24_i2c"}));
    EXPECT_EQ(st33->i2c_device_id, "st33zp24-i2c");
    EXPECT_EQ(st33->benchmark.command, "TPM_Extend");
    EXPECT_EQ(st33->benchmark.pcr_bank, "sha1");
    for (const char* module : {"tpm_st33zp24", "tpm_st33zp24_i2c"})
        EXPECT_EQ(registry.for_module(module, "drivers/char/tpm/st33zp24"), st33) << module;
    EXPECT_EQ(registry.for_module("tpm_st33zp24", "drivers/char/tpm"), nullptr);
    EXPECT_EQ(registry.for_module("tpm_st33zp24_spi", "drivers/char/tpm/st33zp24"), nullptr);
}

// The chip exists only as a TPM 1.2, and checks only its own requirement.
TEST(DeviceModelsTest, St33zp24RefusesTpm20AndTheNuvotonRequirements) {
    DeviceEntry entry = *load_device_registry(kRegistry).find("tpm_st33zp24_i2c");
    DeviceProfile plain;
    EXPECT_EQ(model_mismatch(entry, plain), "");
    DeviceProfile nuvoton_strict = load_device_profile(std::string(KSWEEP_SOURCE_DIR) +
                                                       "/qemu/profiles/nuvoton_strict_timing.yaml");
    EXPECT_NE(model_mismatch(entry, nuvoton_strict)
                  .find("states min_status_gap_us, which model "
                        "'st33zp24_i2c' does not check"),
              std::string::npos);
    entry.tpm = TpmFamily::tpm20;
    EXPECT_NE(model_mismatch(entry, plain).find("has no TPM 2.0 variant"), std::string::npos);
}

TEST(DeviceRegistryTest, AModuleFindsItsEntryOnlyInItsDirectory) {
    DeviceRegistry registry = load_device_registry(kRegistry);
    const DeviceEntry* e = registry.for_module("tpm_i2c_nuvoton", "drivers/char/tpm");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->driver, "tpm_i2c_nuvoton");
    EXPECT_EQ(registry.for_module("tpm_i2c_nuvoton", "drivers/misc"), nullptr);
    EXPECT_EQ(registry.for_module("tpm_nsc", "drivers/char/tpm"), nullptr);
}

TEST(DeviceRegistryTest, Cr50EntryHasItsInterruptLine) {
    DeviceRegistry registry = load_device_registry(kRegistry);
    const DeviceEntry* cr50 = registry.for_module("tpm_tis_i2c_cr50", "drivers/char/tpm");
    ASSERT_NE(cr50, nullptr);
    EXPECT_EQ(cr50->model, "cr50");
    EXPECT_EQ(cr50->i2c_device_id, "cr50");
    EXPECT_EQ(cr50->interrupt, InterruptMode::wired);
    EXPECT_EQ(registry.find("tpm_i2c_nuvoton")->interrupt, InterruptMode::none);
    EXPECT_EQ(model_mismatch(*cr50, load_device_profile(cr50->profile)), "");
    DeviceEntry wired_nuvoton = *registry.find("tpm_i2c_nuvoton");
    wired_nuvoton.interrupt = InterruptMode::wired;
    EXPECT_NE(model_mismatch(wired_nuvoton, DeviceProfile{})
                  .find("model 'nuvoton' drives no interrupt line for bind.interrupt to carry"),
              std::string::npos);
}

constexpr const char* kEntry = R"(devices:
  tpm_x:
    description: x
    model: nuvoton
    tpm: "2.0"
    i2c_address: 0x2e
    modules:
      directory: drivers/char/tpm
      load: [tpm_x]
    bind:
      i2c_new_device: tpm_x
    benchmark:
      command: TPM2_PCR_Extend
      pcr_bank: sha256
    profile: profiles/x.yaml
)";

std::string with(const std::string& from, const std::string& to) {
    std::string text = kEntry;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

void expect_error(const std::string& yaml, const std::string& where, const std::string& what) {
    testing::expect_yaml_error<RegistryError>(
        [](const std::string& text) { parse_device_registry(text, "r.yaml"); }, "r.yaml", yaml,
        where, what);
}

TEST(DeviceRegistryTest, ErrorsPointAtTheProblem) {
    EXPECT_NO_THROW(parse_device_registry(kEntry, "r.yaml"));
    expect_error(with("    model: nuvoton\n", "    modle: nuvoton\n"), "4:5",
                 "unknown key 'modle'");
    expect_error(with("0x2e", "0x80"), "6:18", "7-bit");
    expect_error(with("\"2.0\"", "\"3.0\""), "5:10", "\"1.2\" or \"2.0\"");
    expect_error(with("[tpm_x]", "[]"), "9:13", "load order");
    expect_error(with("[tpm_x]", "[tpm_x, tpm_x]"), "9:21", "listed twice");
    expect_error(with("drivers/char/tpm", "../tpm"), "8:18", "without '..'");
    expect_error(with("TPM2_PCR_Extend", "TPM_Extend"), "13:16", "TPM 1.2 command");
    expect_error(with("sha256", "sha1"), "14:17", "sha256 bank");
    expect_error(with("TPM2_PCR_Extend", "TPM2_Quote"), "13:16", "unknown benchmark");
    expect_error(with("i2c_new_device: tpm_x\n", "i2c_new_device: tpm_x\n      interrupt: wire\n"),
                 "12:18", "'interrupt' must be wired or none");
    expect_error(with("    bind:\n      i2c_new_device: tpm_x\n", ""), "3:5", "needs 'bind'");
    expect_error(with("tpm_x\n    benchmark", "tpm x\n    benchmark"), "11:23", "device id");
    expect_error("devices: []\n", "1:10", "mapping");
    expect_error("devices: {}\n", "1:10", "no device");
    expect_error("device: {}\n", "1:1", "unknown key 'device'");
    expect_error("devices: [x\n", "2:1", "flow");
}

TEST(DeviceRegistryTest, AModuleBelongsToOneEntry) {
    std::string two = kEntry;
    std::string second = std::string(kEntry).substr(std::string(kEntry).find("  tpm_x:"));
    second.replace(2, 5, "tpm_y");
    expect_error(two + second, "16:3", "already belongs to 'tpm_x'");
}

TEST(DeviceRegistryTest, MissingFileIsAClearError) {
    EXPECT_THROW(load_device_registry("/nonexistent/devices.yaml"), RegistryError);
}

TEST(DeviceModelsTest, AnEntryWithoutItsModelClassIsRefused) {
    DeviceEntry entry = parse_device_registry(kEntry, "r.yaml").entries()[0];
    DeviceProfile plain;
    EXPECT_EQ(model_mismatch(entry, plain), "");
    entry.model = "atmel";
    EXPECT_EQ(model_mismatch(entry, plain),
              "r.yaml:2: unknown model 'atmel' (ksweep-tpmd has nuvoton, st33zp24_i2c, cr50)");
}

} // namespace
} // namespace ksweep::device
