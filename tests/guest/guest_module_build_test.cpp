// Out-of-tree module builds against the installed headers: private headers found and copied,
// warnings captured, errors reported, and a second build of the same files served from cache.
#include "core/file_io.h"
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

TEST_F(ModuleBuildTest, MissingInputsAreClearErrors) {
    EXPECT_NE(build("src/none.c").error.find("cannot read"), std::string::npos);
    auto r = build_modules({{(dir_ / "x.c").string()}, {}, "/nonexistent", dir_.string()});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("headers"), std::string::npos);
}

} // namespace
} // namespace ksweep::validate
