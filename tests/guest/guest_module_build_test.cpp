// Out-of-tree module builds against the installed headers: private headers found and copied,
// warnings captured, errors reported, and a second build of the same files served from cache.
#include "core/file_io.h"
#include "guest/driver_modules.h"
#include "guest/guest_benchmark.h"
#include "guest/module_build.h"
#include "require_env.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;

namespace ksweep::validate {

using namespace ksweep::guest;
namespace {

class ModuleBuildTest : public ::testing::Test {
  protected:
    void SetUp() override {
        try {
            headers_ = GuestEnvironment::load().headers_dir;
        } catch (const std::exception& e) {
            KSWEEP_SKIP_OR_FAIL(e.what());
        }
    }
    void write(const fs::path& rel, const std::string& text) {
        fs::create_directories((dir_ / rel).parent_path());
        std::ofstream(dir_ / rel) << text;
    }
    ModuleBuildResult build(const std::string& source) {
        return build_modules({{(dir_ / source).string()},
                              {(dir_ / "private").string()},
                              headers_,
                              (dir_ / "cache").string()});
    }

    std::string headers_;
    TempDir tmp_{"ksweep-modbuild-test"};
    const fs::path dir_ = tmp_.path();
};

// A kernel-style module whose private header is not beside it, only in an include dir.
constexpr const char* kModule = R"(#include <linux/module.h>
#include "ksweep_probe.h"

static int __init ksweep_probe_init(void)
{
	int unused;
	return KSWEEP_PROBE_VALUE;
}
module_init(ksweep_probe_init);
MODULE_LICENSE("GPL");
)";

TEST_F(ModuleBuildTest, BuildsWithPrivateHeaderCapturesWarningsAndCaches) {
    write("private/ksweep_probe.h", "#define KSWEEP_PROBE_VALUE 0\n");
    write("src/ksweep_probe.c", kModule);
    auto first = build("src/ksweep_probe.c");
    ASSERT_TRUE(first.ok) << first.error;
    EXPECT_FALSE(first.cached);
    ASSERT_EQ(first.modules.size(), 1u);
    EXPECT_TRUE(fs::exists(first.modules[0]));
    EXPECT_EQ(fs::path(first.modules[0]).filename(), "ksweep_probe.ko");
    ASSERT_EQ(first.warnings.size(), 1u);
    EXPECT_NE(first.warnings[0].find("unused"), std::string::npos);
    // Named after the user's file, not the cache's copy.
    EXPECT_EQ(first.warnings[0].rfind((dir_ / "src/ksweep_probe.c").string() + ":", 0), 0u)
        << first.warnings[0];

    auto again = build("src/ksweep_probe.c");
    EXPECT_TRUE(again.ok && again.cached);
    EXPECT_EQ(again.modules, first.modules);
    EXPECT_EQ(again.warnings, first.warnings);

    // A change in a private header is a different build.
    write("private/ksweep_probe.h", "#define KSWEEP_PROBE_VALUE (0)\n");
    auto changed = build("src/ksweep_probe.c");
    EXPECT_TRUE(changed.ok);
    EXPECT_FALSE(changed.cached);
    EXPECT_NE(changed.dir, first.dir);
}

TEST_F(ModuleBuildTest, CompileErrorsAreReported) {
    write("src/broken.c", "#include <linux/module.h>\nstatic int x = undeclared_thing;\n"
                          "MODULE_LICENSE(\"GPL\");\n");
    auto r = build("src/broken.c");
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("undeclared_thing"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find((dir_ / "src/broken.c").string() + ":2:"), std::string::npos) << r.error;
    EXPECT_TRUE(fs::exists(r.log_path));
    // A failure is not cached as a success.
    EXPECT_FALSE(build("src/broken.c").cached);
}

// A device of two modules (a core and its bus glue, as st33zp24 has): each built as the
// directory's Makefile composes it, in one build, in load order; a header of the parent
// directory ("../x.h") found where the tree has it.
constexpr const char* kCoreModule = R"(#include <linux/module.h>
#include "../ksweep_shared.h"

int ksweep_core_value(void)
{
	return KSWEEP_SHARED_VALUE;
}
EXPORT_SYMBOL(ksweep_core_value);
MODULE_LICENSE("GPL");
)";

constexpr const char* kPhyModule = R"(#include <linux/module.h>

int ksweep_core_value(void);

static int __init ksweep_phy_init(void)
{
	return ksweep_core_value();
}
module_init(ksweep_phy_init);
MODULE_LICENSE("GPL");
)";

device::DeviceEntry two_module_device() {
    device::DeviceEntry entry;
    entry.driver = "ksweep_phy";
    entry.module_directory = "drivers/ksweep";
    entry.modules = {"ksweep_core", "ksweep_phy"};
    return entry;
}

TEST_F(ModuleBuildTest, RegistryModulesBuildAsTheirMakefileComposesThem) {
    write("tree/drivers/ksweep_shared.h", "#define KSWEEP_SHARED_VALUE 0\n");
    write("tree/drivers/ksweep/core.c", kCoreModule);
    write("tree/drivers/ksweep/phy.c", kPhyModule);
    write("tree/drivers/ksweep/unused.c", "#error not part of either module\n");
    write("tree/drivers/ksweep/Makefile", "ksweep_core-objs = core.o\n"
                                          "obj-$(CONFIG_KSWEEP_CORE) += ksweep_core.o\n"
                                          "ksweep_phy-objs := phy.o\n"
                                          "obj-m += ksweep_phy.o\n"
                                          "obj-m += unused.o\n");
    ModuleBuildRequest request = driver_build_request(two_module_device(), dir_ / "tree", "");
    EXPECT_EQ(request.sources, (std::vector<std::string>{(dir_ / "tree/drivers/ksweep/core.c"),
                                                         (dir_ / "tree/drivers/ksweep/phy.c")}));
    request.headers_dir = headers_;
    request.cache_dir = dir_ / "cache";
    auto r = build_modules(request);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.modules.size(), 2u);
    EXPECT_EQ(fs::path(r.modules[0]).filename(), "ksweep_core.ko");
    EXPECT_EQ(fs::path(r.modules[1]).filename(), "ksweep_phy.ko");
    for (const auto& ko : r.modules)
        EXPECT_TRUE(fs::exists(ko)) << ko;
    // modpost saw the core's export: no "undefined" warning for the glue module.
    for (const auto& w : r.warnings)
        EXPECT_EQ(w.find("undefined"), std::string::npos) << w;
}

TEST_F(ModuleBuildTest, AStandInReplacesTheTreesFileOfItsName) {
    write("tree/drivers/ksweep/core.c", kCoreModule);
    write("tree/drivers/ksweep/phy.c", kPhyModule);
    write("tree/drivers/ksweep/Makefile", "ksweep_core-objs = core.o\nobj-m += ksweep_core.o\n"
                                          "ksweep_phy-objs = phy.o\nobj-m += ksweep_phy.o\n");
    write("edited/phy.c", kPhyModule);
    auto request = driver_build_request(two_module_device(), dir_ / "tree", dir_ / "edited/phy.c");
    EXPECT_EQ(request.sources[1], (dir_ / "edited/phy.c").string());
    EXPECT_EQ(request.include_dirs.back(), (dir_ / "tree/drivers/ksweep").string());
    try {
        driver_build_request(two_module_device(), dir_ / "tree", dir_ / "edited/other.c");
        ADD_FAILURE() << "a stand-in no module links was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("is not a source of ksweep_phy"), std::string::npos)
            << e.what();
    }
}

TEST_F(ModuleBuildTest, AModuleTheMakefileDoesNotDefineIsAClearError) {
    write("tree/drivers/ksweep/Makefile", "obj-m += ksweep_core.o\n");
    try {
        driver_build_request(two_module_device(), dir_ / "tree", "");
        ADD_FAILURE() << "accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("no kbuild rule for module ksweep_phy in " +
                                             (dir_ / "tree/drivers/ksweep/Makefile").string()),
                  std::string::npos)
            << e.what();
    }
}

TEST_F(ModuleBuildTest, MissingInputsAreClearErrors) {
    EXPECT_NE(build("src/none.c").error.find("cannot read"), std::string::npos);
    auto r = build_modules({{(dir_ / "x.c").string()}, {}, "/nonexistent", dir_.string()});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("headers"), std::string::npos);
}

} // namespace
} // namespace ksweep::validate
