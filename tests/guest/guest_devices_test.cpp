// The guest side of a device file, without QEMU: the kernel command line init.sh reads, the
// check of every value read, one config fragment for every device, and the guest kernel's
// modules a driver needs (from its .modinfo).
#include "core/file_io.h"
#include "core/process.h"
#include "device/device_registry.h"
#include "guest/guest_config.h"
#include "guest/guest_fragment.h"
#include "guest/module_deps.h"
#include "guest/qemu_runner.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace ksweep::guest {
namespace {

const std::string kRegistry = std::string(KSWEEP_SOURCE_DIR) + "/qemu/devices.yaml";

TEST(GuestDevices, KernelArgumentsNameTheOperationAndItsTarget) {
    auto registry = device::load_device_registry(kRegistry);
    EXPECT_EQ(guest_kernel_args(*registry.find("ak8974"), 20),
              "ksweep.n=20 ksweep.device=ak8974 ksweep.addr=0x0e ksweep.op=read "
              "ksweep.target=iio:device*/in_magn_x_raw");
    EXPECT_EQ(guest_kernel_args(*registry.find("rtc-max6900"), 5),
              "ksweep.n=5 ksweep.device=max6900 ksweep.addr=0x50 ksweep.op=rtc-set-time "
              "ksweep.target=rtc/rtc* ksweep.arg=2026-12-02T06:53:00");
    EXPECT_EQ(guest_kernel_args(*registry.find("tpm_i2c_nuvoton"), 3),
              "ksweep.n=3 ksweep.device=tpm2_i2c_nuvoton ksweep.addr=0x2e ksweep.tpm=2.0");
}

TEST(GuestDevices, EveryValueIsCheckedAndTheFirstWrongOneNamed) {
    GuestReport report;
    report.values = {"291", "291", "0", "291"};
    ValueCheck c = check_values(report, "291", "read in_magn_x_raw", "devices/ak8974.yaml");
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.matched, 3u);
    EXPECT_EQ(c.message, "value check failed: 3/4 read in_magn_x_raw returned 291 "
                         "(devices/ak8974.yaml); operation 2 read '0'");
    report.values = {"291"};
    EXPECT_TRUE(check_values(report, "291", "x", "f").passed);
    report.values.clear();
    EXPECT_FALSE(check_values(report, "291", "x", "f").passed) << "nothing read: nothing checked";
}

// One fragment for all the device files: each symbol once, under a comment that names the
// files and never a symbol (merge_config.sh greps for those).
TEST(GuestDevices, OneFragmentCarriesEveryDeviceFilesSymbols) {
    auto registry = device::load_device_registry(kRegistry);
    std::string base = read_file(std::string(KSWEEP_SOURCE_DIR) + "/qemu/guest.config").value();
    std::string fragment = device_config_fragment(registry, base);
    for (const auto& entry : registry.entries())
        if (entry.spec)
            for (const auto& line : entry.spec->config) {
                size_t first = fragment.find(line + "\n");
                EXPECT_NE(first, std::string::npos) << line;
                EXPECT_EQ(fragment.find("\n" + line + "\n", first + 1), std::string::npos)
                    << line << " twice";
            }
    EXPECT_NE(fragment.find("# The device files' symbols: ak8974.yaml"), std::string::npos);
    EXPECT_EQ(fragment.find("# CONFIG_"), std::string::npos);
    // A symbol guest.config already sets is not repeated; one asked otherwise is an error.
    EXPECT_EQ(device_config_fragment(registry, "CONFIG_IIO=y\n").find("CONFIG_IIO=y"),
              std::string::npos);
    try {
        device_config_fragment(registry, "CONFIG_AK8974=y\n");
        FAIL() << "a clash was accepted";
    } catch (const GuestBuildError& e) {
        EXPECT_NE(std::string(e.what()).find("asks CONFIG_AK8974=m, but qemu/guest.config asks "
                                             "CONFIG_AK8974=y"),
                  std::string::npos)
            << e.what();
    }
    // Written once by content: the same text is the same file (and the same guest kernel).
    TempDir cache("ksweep-fragment");
    std::string path = write_guest_fragment(std::string(KSWEEP_SOURCE_DIR) + "/qemu/guest.config",
                                            registry, cache.path().string());
    EXPECT_EQ(read_file(path).value(), base + fragment);
    EXPECT_EQ(write_guest_fragment(std::string(KSWEEP_SOURCE_DIR) + "/qemu/guest.config", registry,
                                   cache.path().string()),
              path);
}

// A .ko stand-in: an ELF object whose .modinfo says what modpost would.
void module(const fs::path& path, const std::string& modinfo) {
    fs::create_directories(path.parent_path());
    fs::path source = path;
    source.replace_extension(".c");
    std::ofstream(source) << "__attribute__((section(\".modinfo\"), used)) static const char "
                             "info[] = \""
                          << modinfo << "\";\n";
    CommandResult r = run_command({"cc", "-c", "-o", path.string(), source.string()}, "",
                                  std::chrono::seconds(60));
    ASSERT_EQ(r.status, 0) << r.output;
}

TEST(GuestDevices, TheGuestKernelsModulesADriverNeedsComeFirst) {
    TempDir dir("ksweep-module-deps");
    const fs::path build = dir.path() / "build";
    module(build / "drivers/base/regmap/regmap-i2c.ko", "license=GPL");
    module(build / "drivers/iio/buffer/kfifo_buf.ko", "depends=regmap-i2c");
    module(dir.path() / "ak8974.ko", "depends=kfifo_buf,regmap_i2c");
    EXPECT_EQ(module_depends((dir.path() / "ak8974.ko").string()),
              (std::vector<std::string>{"kfifo_buf", "regmap_i2c"}));
    EXPECT_EQ(guest_module_dependencies({(dir.path() / "ak8974.ko").string()}, build.string()),
              (std::vector<std::string>{(build / "drivers/base/regmap/regmap-i2c.ko").string(),
                                        (build / "drivers/iio/buffer/kfifo_buf.ko").string()}));
    module(dir.path() / "other.ko", "depends=industrialio");
    try {
        guest_module_dependencies({(dir.path() / "other.ko").string()}, build.string());
        FAIL() << "a dependency the build lacks was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("other needs module industrialio"), std::string::npos)
            << e.what();
    }
    std::ofstream(dir.path() / "text.ko") << "not ELF";
    EXPECT_THROW(module_depends((dir.path() / "text.ko").string()), std::runtime_error);
}

} // namespace
} // namespace ksweep::guest
