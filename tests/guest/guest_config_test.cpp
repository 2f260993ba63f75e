// The guest kernel's config: every fragment symbol must keep its value after olddefconfig, and one
// that does not is named with why (not in the tree, or dependencies unmet). The first tests read
// text; the last runs the real tinyconfig + merge_config.sh + olddefconfig on Debian's 6.1 tree
// with a fragment naming a symbol no tree has, and checks the tree stayed unwritten.
#include "core/file_io.h"
#include "core/process.h"
#include "guest/guest_benchmark.h"
#include "guest/guest_build.h"
#include "guest/guest_config.h"
#include "require_env.h"

#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace ksweep::guest {
namespace {

const auto kEverySymbolDefined = [](const std::string&) { return true; };

TEST(GuestConfig, HzFragmentOnlyForWhatKconfigOffers) {
    EXPECT_EQ(hz_fragment(1000), "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n");
    EXPECT_TRUE(is_supported_hz(100) && is_supported_hz(250) && is_supported_hz(300));
    EXPECT_THROW(hz_fragment(500), GuestBuildError);
}

TEST(GuestConfig, SymbolsThatKeptTheirValueAreMet) {
    std::string fragment = "# a comment\nCONFIG_PVH=y\nCONFIG_TCG_TIS_I2C_NUVOTON=m\n"
                           "# CONFIG_TCG_TPM2_HMAC is not set\nCONFIG_HZ=250\n";
    std::string final_config = "CONFIG_PVH=y\nCONFIG_TCG_TIS_I2C_NUVOTON=m\nCONFIG_HZ=250\n";
    // Asked off and absent (an older tree without the symbol): met.
    EXPECT_TRUE(unmet_symbols(fragment, final_config, kEverySymbolDefined).empty());
}

TEST(GuestConfig, EveryUnmetSymbolIsNamedWithWhy) {
    std::string fragment = "CONFIG_PVH=y\nCONFIG_I2C_VIRTIO=y\nCONFIG_NO_SUCH=y\nCONFIG_HZ=1000\n";
    std::string final_config = "# CONFIG_PVH is not set\nCONFIG_I2C_VIRTIO=m\nCONFIG_HZ=250\n";
    auto defined = [](const std::string& s) { return s != "CONFIG_NO_SUCH"; };
    auto unmet = unmet_symbols(fragment, final_config, defined);
    ASSERT_EQ(unmet.size(), 4u);
    std::string text = describe_unmet(unmet, "guest.config");
    EXPECT_NE(text.find("CONFIG_NO_SUCH=y (guest.config) is not a symbol of this tree"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("CONFIG_PVH=y (guest.config) did not take its value: its dependencies"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("CONFIG_I2C_VIRTIO=y (guest.config) became m"), std::string::npos) << text;
    EXPECT_NE(text.find("CONFIG_HZ=1000"), std::string::npos) << text;
}

TEST(GuestConfig, KconfigDefinitionsAreFoundInTheTree) {
    TempDir tree{"ksweep-kconfig"};
    fs::create_directories(tree.path() / "drivers/i2c/busses");
    std::ofstream(tree.path() / "drivers/i2c/busses/Kconfig")
        << "config I2C_VIRTIO\n\ttristate \"Virtio I2C Adapter\"\n";
    std::ofstream(tree.path() / "Kconfig") << "menuconfig TCG_TPM\n\ttristate \"TPM\"\n"
                                           << "\tdepends on I2C_VIRTIO_EXTRA\n";
    EXPECT_TRUE(tree_defines_symbol(tree.path(), "CONFIG_I2C_VIRTIO"));
    EXPECT_TRUE(tree_defines_symbol(tree.path(), "TCG_TPM"));
    EXPECT_FALSE(tree_defines_symbol(tree.path(), "CONFIG_I2C_VIRTIO_EXTRA")) << "only a use";
    EXPECT_FALSE(tree_defines_symbol(tree.path(), "CONFIG_I2C"));
}

TEST(GuestConfig, TheRealMergeNamesASymbolTheTreeLacksAndLeavesTheTreeUnwritten) {
    std::string tree;
    try {
        tree = GuestEnvironment::load().tree;
    } catch (const std::exception& e) {
        KSWEEP_SKIP_OR_FAIL(e.what());
    }
    TempDir dir{"ksweep-guest-config"};
    const fs::path fragment = dir.path() / "guest.config";
    fs::copy_file(default_guest_fragment(), fragment);
    std::ofstream(fragment, std::ios::app) << "CONFIG_KSWEEP_NO_SUCH_SYMBOL=y\n";
    const fs::path stamp = dir.path() / "stamp";
    std::ofstream(stamp) << "";
    const fs::path out = dir.path() / "build";
    fs::create_directories(out);
    try {
        configure_guest(tree, out, fragment.string(), 1000, {});
        FAIL() << "a symbol the tree lacks was accepted";
    } catch (const GuestBuildError& e) {
        std::string message = e.what();
        EXPECT_NE(message.find("CONFIG_KSWEEP_NO_SUCH_SYMBOL=y"), std::string::npos) << message;
        EXPECT_NE(message.find("is not a symbol of this tree"), std::string::npos) << message;
        EXPECT_NE(message.find("1 symbol(s)"), std::string::npos)
            << "everything else the guest needs took its value:\n"
            << message;
    }
    std::string config = read_file(out / ".config").value_or("");
    EXPECT_NE(config.find("CONFIG_HZ=1000\n"), std::string::npos);
    EXPECT_NE(config.find("CONFIG_I2C_VIRTIO=y\n"), std::string::npos);
    // O= only: nothing in the tree is newer than the stamp.
    CommandResult newer = run_command({"find", tree, "-newer", stamp.string(), "-print", "-quit"},
                                      "", std::chrono::seconds(120));
    EXPECT_EQ(newer.status, 0);
    EXPECT_EQ(newer.output, "") << "configuring wrote into the tree";
}

} // namespace
} // namespace ksweep::guest
