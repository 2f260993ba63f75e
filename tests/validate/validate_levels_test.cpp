// Level logic of `ksweep validate` without QEMU: kbuild module resolution, series reading,
// checkpatch output, warning comparison, the L4 verdict on synthetic timings, and whole runs on
// a small git repository (a patch that does not apply; a driver the config does not enable).
#include "../integration/check_tree_6_1.h"
#include "kbuild/modules.h"
#include "require_env.h"
#include "validate/checkpatch_run.h"
#include "validate/levels_device.h"
#include "validate/levels_module_build.h"
#include "validate/stats.h"
#include "validate/validate_run.h"
#include "validate/validate_series.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <regex>

namespace fs = std::filesystem;

namespace ksweep::validate {

using namespace ksweep::kbuild;
namespace {

constexpr const char* kTpmMakefile = R"(# SPDX-License-Identifier: GPL-2.0
obj-$(CONFIG_TCG_TPM) += tpm.o
tpm-y := tpm-chip.o
tpm-y += eventlog/common.o
tpm-$(CONFIG_ACPI) += tpm_ppi.o \
	eventlog/acpi.o
obj-$(CONFIG_TCG_TIS_SPI) += tpm_tis_spi.o
tpm_tis_spi-y := tpm_tis_spi_main.o
ccflags-y += -DDEBUG
obj-$(CONFIG_TCG_TIS_I2C_NUVOTON) += tpm_i2c_nuvoton.o
obj-y += always.o
)";

TEST(KbuildTest, SingleFileModuleAndItsConfig) {
    auto m = module_in_makefile(kTpmMakefile, "tpm_i2c_nuvoton.o");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->name, "tpm_i2c_nuvoton");
    EXPECT_EQ(m->config, "CONFIG_TCG_TIS_I2C_NUVOTON");
    EXPECT_EQ(m->kbuild_lines, (std::vector<std::string>{"ccflags-y += -DDEBUG"}));
}

TEST(KbuildTest, CompositeModulesTakeTheirObjects) {
    auto m = module_in_makefile(kTpmMakefile, "tpm_ppi.o"); // listed on a continued line
    ASSERT_TRUE(m);
    EXPECT_EQ(m->name, "tpm");
    EXPECT_EQ(m->config, "CONFIG_TCG_TPM");
    ASSERT_EQ(m->kbuild_lines.size(), 4u); // three tpm- lines and the flags
    // Joined as make joins it: the backslash and the whitespace around it become one space.
    EXPECT_EQ(m->kbuild_lines[2], "tpm-$(CONFIG_ACPI) += tpm_ppi.o eventlog/acpi.o");
    auto spi = module_in_makefile(kTpmMakefile, "tpm_tis_spi_main.o");
    ASSERT_TRUE(spi);
    EXPECT_EQ(spi->name, "tpm_tis_spi");
    EXPECT_FALSE(module_in_makefile(kTpmMakefile, "unknown.o"));
}

TEST(KbuildTest, ObjYIsFixed) {
    auto m = module_in_makefile(kTpmMakefile, "always.o");
    ASSERT_TRUE(m);
    EXPECT_EQ(m->fixed, 'y');
    EXPECT_EQ(module_config_value(*m, {}), "y");
}

std::optional<std::string> fake_reader(const std::string&, const std::string& rel) {
    if (rel == "drivers/char/tpm/Makefile")
        return std::string(kTpmMakefile);
    return std::nullopt;
}

TEST(KbuildTest, FileInASubdirectoryIsFoundInTheParentMakefile) {
    auto m = find_module("/", "drivers/char/tpm/eventlog/common.c", fake_reader);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->name, "tpm");
    EXPECT_EQ(m->directory, "drivers/char/tpm");
    EXPECT_FALSE(find_module("/", "drivers/char/tpm/tpm.h", fake_reader));
}

// The device registry names modules; the guest builds them as the Makefile composes them.
TEST(KbuildTest, ModulesByNameAndTheObjectsTheyLink) {
    auto tpm = find_module_named("/", "drivers/char/tpm", "tpm", fake_reader);
    ASSERT_TRUE(tpm);
    EXPECT_EQ(tpm->directory, "drivers/char/tpm");
    EXPECT_EQ(module_objects(*tpm), (std::vector<std::string>{"tpm-chip.o", "eventlog/common.o",
                                                              "tpm_ppi.o", "eventlog/acpi.o"}));
    auto nuvoton = find_module_named("/", "drivers/char/tpm", "tpm_i2c_nuvoton", fake_reader);
    ASSERT_TRUE(nuvoton);
    EXPECT_EQ(module_objects(*nuvoton), std::vector<std::string>{"tpm_i2c_nuvoton.o"});
    // tpm-chip.o is an object of tpm, not a module of that name.
    EXPECT_FALSE(find_module_named("/", "drivers/char/tpm", "tpm-chip", fake_reader));
    EXPECT_FALSE(find_module_named("/", "drivers/misc", "tpm", fake_reader));
}

TEST(KbuildTest, ConfigValues) {
    KernelConfig config = parse_kernel_config("CONFIG_A=m\n# CONFIG_B is not set\nCONFIG_C=y\n");
    KbuildModule a{"a", "d", "CONFIG_A", 0, {}}, b{"b", "d", "CONFIG_B", 0, {}};
    EXPECT_EQ(module_config_value(a, config), "m");
    EXPECT_EQ(module_config_value(b, config), "");
}

TEST(SeriesTest, SubjectFilesAndBase) {
    std::string mail = "From 1234 Mon Sep 17 00:00:00 2001\n"
                       "Subject: [PATCH v2 1/3] tpm: tpm_i2c_nuvoton: a long subject that\n"
                       " continues here\n"
                       "\n"
                       "body\n---\n"
                       "diff --git a/drivers/x/a.c b/drivers/x/a.c\n"
                       "diff --git a/drivers/x/old.h b/drivers/x/new.h\n"
                       "diff --git a/drivers/x/a.c b/drivers/x/a.c\n"
                       "base-commit: 0123456789abcdef0123456789abcdef01234567\n";
    EXPECT_EQ(patch_subject(mail), "tpm: tpm_i2c_nuvoton: a long subject that continues here");
    EXPECT_EQ(patch_files(mail), (std::vector<std::string>{"drivers/x/a.c", "drivers/x/new.h"}));
    EXPECT_EQ(patch_base_commit(mail), "0123456789abcdef0123456789abcdef01234567");
}

TEST(CheckpatchTest, CountsAndMessages) {
    std::string out = "WARNING:MSLEEP: msleep < 20ms can sleep for up to 20ms\n"
                      "#25: FILE: drivers/x/a.c:12:\n"
                      "+\tmsleep(1);\n\n"
                      "CHECK:ALLOC: something\n"
                      "#30: FILE: drivers/x/a.c:20:\n\n"
                      "total: 0 errors, 1 warnings, 1 checks, 40 lines checked\n";
    CheckpatchCounts c = parse_checkpatch_output(out);
    EXPECT_EQ(c.errors, 0);
    EXPECT_EQ(c.warnings, 1);
    EXPECT_EQ(c.checks, 1);
    ASSERT_EQ(c.messages.size(), 2u);
    EXPECT_EQ(c.messages[0], "WARNING:MSLEEP: msleep < 20ms can sleep for up to 20ms (#25: FILE: "
                             "drivers/x/a.c:12:)");
}

TEST(WarningsTest, LineNumbersAndBuildDirectoryDoNotMakeAWarningNew) {
    std::string dir = "/cache/abc";
    std::string before = normalise_warning(
        "/cache/abc/drivers/x/a.c:12:5: warning: unused variable 'i' [-Wunused-variable]", dir);
    std::string after = normalise_warning(
        "/cache/abc/drivers/x/a.c:14:5: warning: unused variable 'i' [-Wunused-variable]", dir);
    EXPECT_EQ(before, "drivers/x/a.c: warning: unused variable 'i' [-Wunused-variable]");
    EXPECT_EQ(before, after);
    EXPECT_TRUE(new_warnings({before}, {after}).empty());
    EXPECT_EQ(new_warnings({before}, {after, after}).size(), 1u); // a second copy is new
}

// Two interleaved boots per variant of 200 extends (the defaults), lognormal around the given
// medians with TCG-sized noise, judged as run_device_level judges a real run.
DeviceRun timed_run(double baseline_us, double patched_us, double sigma, LevelResult& level) {
    DeviceRun run;
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> noise(0.0, sigma);
    for (int b = 1; b <= 2; ++b)
        for (auto [variant, median] :
             {std::pair{"baseline", baseline_us}, {"patched", patched_us}}) {
            BootRun boot;
            boot.variant = variant;
            boot.boot = b;
            boot.ok = boot.pcr_passed = true;
            for (std::uint32_t i = 0; i < 200; ++i)
                boot.samples.push_back({i, std::llround(median * noise(rng) * 1000), 0});
            run.boots.push_back(boot);
        }
    summarize_device_run(run);
    judge_device_run(run, level);
    return run;
}

TEST(DeviceVerdictTest, TwiceAsSlowFailsWithTheInterval) {
    LevelResult level;
    timed_run(3000, 6000, 0.3, level);
    EXPECT_EQ(level.status, LevelStatus::failed);
    EXPECT_TRUE(std::regex_search(
        level.message,
        std::regex(R"(^slower: median ratio 2\.[0-9]{2}x \(95 % CI 1\.9[0-9]-2\.[0-9]{2}, )"
                   R"(Mann-Whitney p < 0\.001\), patched [0-9]+ us vs baseline [0-9]+ )"
                   R"(us; the whole CI is above 1\.10x$)")))
        << level.message;
}

TEST(DeviceVerdictTest, FasterButNoisyPasses) {
    LevelResult level;
    // Patched 0.3x, with noise wide enough that a good share of its extends is slower than the
    // baseline's median.
    DeviceRun run = timed_run(24000, 7000, 1.2, level);
    EXPECT_EQ(level.status, LevelStatus::passed) << level.message;
    EXPECT_LT(run.median_ratio_high, 1);
    EXPECT_TRUE(std::regex_search(
        level.message,
        std::regex(R"(^median ratio 0\.[0-9]{2}x \(95 % CI 0\.[0-9]{2}-0\.[0-9]{2}, )"
                   R"(Mann-Whitney p < 0\.001\), .*PCR checks passed in 4 boots$)")))
        << level.message;
}

TEST(DeviceVerdictTest, SameSpeedPasses) {
    LevelResult level;
    DeviceRun run = timed_run(20000, 20000, 0.3, level);
    EXPECT_EQ(level.status, LevelStatus::passed) << level.message;
    EXPECT_LT(run.median_ratio_low, 1);
    EXPECT_GT(run.median_ratio_high, 1);
}

TEST(DeviceVerdictTest, SlightlySlowerWithinTheToleranceIsNotCalledSlower) {
    // 5 % slower, measured precisely: real, but below the 10 % that matters.
    LevelResult level;
    DeviceRun run = timed_run(20000, 21000, 0.1, level);
    EXPECT_GT(run.median_ratio_low, 1) << "the interval does see the 5 %";
    EXPECT_EQ(level.status, LevelStatus::passed) << level.message;
}

TEST(DeviceVerdictTest, NoExtendsIsNoVerdictAndNoCrash) {
    DeviceRun run;
    for (const char* variant : {"baseline", "patched"}) {
        BootRun boot;
        boot.variant = variant;
        boot.boot = 1;
        boot.ok = boot.pcr_passed = true; // booted, but timed nothing
        run.boots.push_back(boot);
    }
    summarize_device_run(run);
    LevelResult level;
    judge_device_run(run, level);
    EXPECT_EQ(level.status, LevelStatus::passed);
    EXPECT_NE(level.message.find("no median ratio"), std::string::npos) << level.message;

    // A patched boot that failed before its first extend: the failure is the verdict.
    run.boots[1].ok = false;
    run.boots[1].message = "guest did not boot";
    summarize_device_run(run);
    judge_device_run(run, level);
    EXPECT_EQ(level.status, LevelStatus::failed);
    EXPECT_EQ(level.message, "patched boot 1 failed: guest did not boot");
}

// A git repository shaped like a kernel tree, with one driver and its Makefile.
class ValidateRunTest : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() /
                ("ksweep-validate-test-" + std::to_string(getpid()) + "-" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(root_);
        tree_ = root_ / "tree";
        write(tree_ / "drivers/misc/kfoo/Makefile", "obj-$(CONFIG_KSWEEP_FOO) += kfoo.o\n");
        write(tree_ / "drivers/misc/kfoo/kfoo.c", "int kfoo(void)\n{\n\treturn 1;\n}\n");
        write(root_ / "headers/.config", "CONFIG_HZ=250\n# CONFIG_KSWEEP_FOO is not set\n");
        write(root_ / "headers/Makefile", "# not a real headers tree\n");
        run("git init -q . && git add -A && git -c user.name=t -c user.email=t@t commit -qm base");
    }
    void TearDown() override { fs::remove_all(root_); }

    static void write(const fs::path& path, const std::string& text) {
        fs::create_directories(path.parent_path());
        std::ofstream(path) << text;
    }
    void run(const std::string& command) {
        std::string full = "cd '" + tree_.string() + "' && " + command + " >/dev/null 2>&1";
        ASSERT_EQ(std::system(full.c_str()), 0) << command;
    }
    std::string tree_status() {
        std::string cmd = "git -C '" + tree_.string() + "' status --porcelain";
        FILE* p = popen(cmd.c_str(), "r");
        std::string out;
        char buf[256];
        while (p && fgets(buf, sizeof buf, p))
            out += buf;
        if (p)
            pclose(p);
        return out;
    }
    // A format-patch mail changing `file`'s one function (`int name(void) { return N; }`) from
    // returning `from` to returning `to`; kfoo.c by default.
    void write_patch(const std::string& patch, int number, int from, int to,
                     const std::string& file = "drivers/misc/kfoo/kfoo.c",
                     const std::string& function = "kfoo",
                     const std::string& prefix = "misc: kfoo") {
        write(root_ / "series" / patch,
              "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
              "From: T <t@t>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
              "Subject: [PATCH " +
                  std::to_string(number) + "/2] " + prefix + ": return " + std::to_string(to) +
                  "\n\nWhy.\n\nSigned-off-by: T <t@t>\n---\n"
                  "diff --git a/" +
                  file + " b/" + file + "\n--- a/" + file + "\n+++ b/" + file +
                  "\n@@ -1,4 +1,4 @@\n int " + function + "(void)\n {\n-\treturn " +
                  std::to_string(from) + ";\n+\treturn " + std::to_string(to) +
                  ";\n }\n-- \n2.39.5\n\n");
    }
    ValidateOptions options() {
        ValidateOptions o;
        o.tree = tree_.string();
        o.series_dir = (root_ / "series").string();
        o.headers_dir = (root_ / "headers").string();
        o.cache_dir = (root_ / "cache").string();
        return o;
    }

    fs::path root_, tree_;
};

TEST_F(ValidateRunTest, PatchThatDoesNotApplyFailsL1AndLaterLevelsAreNotRun) {
    write_patch("0001-first.patch", 1, 1, 2);
    write_patch("0002-second.patch", 2, 7, 3); // expects "return 7": does not apply
    ValidateOptions o = options();
    o.levels = {1, 3, 4};
    ValidationReport r = run_validation(o);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    ASSERT_EQ(r.patches.size(), 2u);

    const PatchResult& good = r.patches[0];
    EXPECT_EQ(good.levels[0].status, LevelStatus::passed);
    EXPECT_EQ(good.levels[1].status, LevelStatus::skipped);
    // The config does not enable the driver: not built, never passed.
    EXPECT_EQ(good.levels[2].status, LevelStatus::not_built);
    EXPECT_EQ(good.levels[2].message, "kfoo: not built (CONFIG_KSWEEP_FOO not set)");
    EXPECT_EQ(good.levels[3].status, LevelStatus::not_applicable);
    EXPECT_NE(good.levels[3].message.find("no device model for kfoo"), std::string::npos);
    EXPECT_TRUE(good.passed());

    const PatchResult& bad = r.patches[1];
    EXPECT_EQ(bad.subject, "misc: kfoo: return 3");
    EXPECT_EQ(bad.levels[0].status, LevelStatus::failed);
    ASSERT_FALSE(bad.levels[0].details.empty());
    EXPECT_NE(bad.levels[0].details[0].find("patch failed"), std::string::npos)
        << bad.levels[0].details[0];
    EXPECT_EQ(bad.levels[2].status, LevelStatus::not_run);
    EXPECT_EQ(bad.levels[3].status, LevelStatus::not_run);
    EXPECT_FALSE(r.passed());

    // The user's checkout is untouched: no file changed, no commit made.
    EXPECT_EQ(tree_status(), "");
    std::string head = "git -C '" + tree_.string() + "' log --oneline | wc -l | grep -qx 1";
    EXPECT_EQ(std::system(head.c_str()), 0);
}

// A guest kernel that cannot be built fails L4 in one line, once: the next patch says so without
// building it again, and no device run (no figure, no "n=0") is reported for either.
TEST_F(ValidateRunTest, AGuestKernelThatCannotBeBuiltFailsL4OnceInOneLine) {
    write(tree_ / "drivers/char/tpm/Makefile",
          "obj-$(CONFIG_TCG_TIS_I2C_NUVOTON) += tpm_i2c_nuvoton.o\n");
    write(tree_ / "drivers/char/tpm/tpm_i2c_nuvoton.c", "int nuvoton(void)\n{\n\treturn 1;\n}\n");
    run("git add -A && git -c user.name=t -c user.email=t@t commit -qm nuvoton");
    for (int n : {1, 2})
        write_patch("000" + std::to_string(n) + "-nuvoton.patch", n, n, n + 1,
                    "drivers/char/tpm/tpm_i2c_nuvoton.c", "nuvoton", "tpm: nuvoton");
    ValidateOptions o = options();
    o.levels = {1, 4};
    ValidationReport r = run_validation(o);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    ASSERT_EQ(r.patches.size(), 2u);
    EXPECT_EQ(r.guest_hz, std::vector<int>{250}) << "the headers' CONFIG_HZ";
    const LevelResult& first = r.patches[0].levels[3];
    EXPECT_EQ(first.status, LevelStatus::failed);
    EXPECT_EQ(first.message.find('\n'), std::string::npos) << first.message;
    EXPECT_NE(first.message.find("tpm_i2c_nuvoton HZ=250: guest kernel (HZ=250): "),
              std::string::npos)
        << first.message;
    EXPECT_NE(first.message.find("is not a whole kernel tree"), std::string::npos) << first.message;
    const LevelResult& second = r.patches[1].levels[3];
    EXPECT_EQ(second.status, LevelStatus::failed);
    EXPECT_NE(second.message.find("not built again"), std::string::npos) << second.message;
    EXPECT_TRUE(r.patches[0].devices.empty());
    EXPECT_TRUE(r.patches[1].devices.empty());
}

TEST_F(ValidateRunTest, GitRangeIsValidatedFromItsFirstCommit) {
    run("sed -i 's/return 1/return 5/' drivers/misc/kfoo/kfoo.c && "
        "git -c user.name=t -c user.email=t@t commit -qam 'misc: kfoo: return 5'");
    ValidateOptions o = options();
    o.series_dir.clear();
    o.git_range = "HEAD~1..HEAD";
    o.levels = {1, 3};
    o.work_dir = (root_ / "work").string();
    ValidationReport r = run_validation(o);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    ASSERT_EQ(r.patches.size(), 1u);
    EXPECT_EQ(r.patches[0].subject, "misc: kfoo: return 5");
    EXPECT_EQ(r.patches[0].levels[0].status, LevelStatus::passed);
    EXPECT_EQ(r.series, "HEAD~1..HEAD");

    o.git_range = "HEAD";
    r = run_validation(o);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].find("A..B"), std::string::npos);
}

// L3 for real: an obj-m module built against Debian's headers before and after a patch that
// adds an unused variable. The new warning fails the level; the baseline built clean.
TEST_F(ValidateRunTest, NewCompilerWarningFailsL3) {
    // Setup's headers, as it recorded them: never a Debian ABI number written here.
    std::string headers_dir = ksweep::test::tree_from_env("KSWEEP_HEADERS");
    if (!fs::exists(fs::path(headers_dir) / "Makefile"))
        KSWEEP_SKIP_OR_FAIL("no prepared kernel headers (scripts/setup.sh installs them)");
    write(tree_ / "drivers/misc/kfoo/Makefile", "obj-m += kfoo.o\n");
    write(tree_ / "drivers/misc/kfoo/kfoo.c", "#include <linux/module.h>\n\n"
                                              "static int __init kfoo_init(void)\n{\n"
                                              "\treturn 0;\n}\nmodule_init(kfoo_init);\n"
                                              "MODULE_LICENSE(\"GPL\");\n");
    run("git -c user.name=t -c user.email=t@t commit -qam 'kfoo: a module'");
    write(root_ / "series/0001-unused.patch",
          "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
          "From: T <t@t>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
          "Subject: [PATCH] misc: kfoo: an unused variable\n\nWhy.\n\n"
          "Signed-off-by: T <t@t>\n---\n"
          "diff --git a/drivers/misc/kfoo/kfoo.c b/drivers/misc/kfoo/kfoo.c\n"
          "--- a/drivers/misc/kfoo/kfoo.c\n+++ b/drivers/misc/kfoo/kfoo.c\n"
          "@@ -3,5 +3,7 @@\n static int __init kfoo_init(void)\n {\n+\tint unused;\n+\n"
          " \treturn 0;\n }\n module_init(kfoo_init);\n-- \n2.39.5\n\n");
    ValidateOptions o = options();
    o.headers_dir = headers_dir;
    o.levels = {1, 3};
    ValidationReport r = run_validation(o);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    ASSERT_EQ(r.patches.size(), 1u);
    const PatchResult& p = r.patches[0];
    EXPECT_EQ(p.levels[0].status, LevelStatus::passed) << p.levels[0].message;
    ASSERT_EQ(p.modules.size(), 1u);
    EXPECT_EQ(p.modules[0].config_value, "m");
    EXPECT_EQ(p.levels[2].status, LevelStatus::failed) << p.levels[2].message;
    EXPECT_EQ(p.levels[2].message, "kfoo: 1 new warning(s)");
    ASSERT_EQ(p.modules[0].new_warnings.size(), 1u);
    // gcc quotes the name with the locale's quotation marks: match around them.
    const std::string& w = p.modules[0].new_warnings[0];
    EXPECT_EQ(w.rfind("drivers/misc/kfoo/kfoo.c: warning: unused variable ", 0), 0u) << w;
    EXPECT_NE(w.find("[-Wunused-variable]"), std::string::npos) << w;
}

TEST_F(ValidateRunTest, HeaderCountsThroughTheSourcesThatIncludeIt) {
    write(tree_ / "drivers/misc/kfoo/kfoo.h", "#define KFOO 1\n");
    write(tree_ / "drivers/misc/kfoo/kfoo.c", "#include \"kfoo.h\"\nint kfoo(void)\n{\n"
                                              "\treturn KFOO;\n}\n");
    run("git add -A && git -c user.name=t -c user.email=t@t commit -qm 'kfoo: a header'");
    write(root_ / "series/0001-header.patch",
          "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
          "From: T <t@t>\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n"
          "Subject: [PATCH] misc: kfoo: two\n\nWhy.\n\nSigned-off-by: T <t@t>\n---\n"
          "diff --git a/drivers/misc/kfoo/kfoo.h b/drivers/misc/kfoo/kfoo.h\n"
          "--- a/drivers/misc/kfoo/kfoo.h\n+++ b/drivers/misc/kfoo/kfoo.h\n"
          "@@ -1 +1 @@\n-#define KFOO 1\n+#define KFOO 2\n-- \n2.39.5\n\n");
    ValidateOptions o = options();
    o.levels = {1, 3};
    ValidationReport r = run_validation(o);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    ASSERT_EQ(r.patches.size(), 1u);
    ASSERT_EQ(r.patches[0].modules.size(), 1u);
    EXPECT_EQ(r.patches[0].modules[0].name, "kfoo");
    EXPECT_EQ(r.patches[0].levels[2].status, LevelStatus::not_built);
}

TEST_F(ValidateRunTest, MissingSeriesIsAClearError) {
    ValidateOptions o = options();
    o.series_dir = (root_ / "nowhere").string();
    ValidationReport r = run_validation(o);
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].find("does not exist"), std::string::npos);
    EXPECT_FALSE(r.passed());
}

TEST_F(ValidateRunTest, BaseCommitNotInTheRepositoryIsAClearError) {
    write_patch("0001-first.patch", 1, 1, 2);
    write(root_ / "series/0000-cover-letter.patch",
          "Subject: [PATCH 0/2] cover\n\nbase-commit: 1111111111111111111111111111111111111111\n");
    ValidationReport r = run_validation(options());
    ASSERT_EQ(r.errors.size(), 1u);
    EXPECT_NE(r.errors[0].find("1111111111111111111111111111111111111111"), std::string::npos)
        << r.errors[0];
}

TEST_F(ValidateRunTest, ReportFilesAreWritten) {
    write_patch("0001-first.patch", 1, 1, 2);
    ValidateOptions o = options();
    o.levels = {1};
    ValidationReport r = run_validation(o);
    EXPECT_TRUE(r.passed());
    ReportFiles files = write_report_files(r, (root_ / "report").string());
    EXPECT_TRUE(fs::file_size(files.markdown) > 0);
    EXPECT_TRUE(fs::file_size(files.json) > 0);
    EXPECT_TRUE(files.charts.empty()); // nothing booted
}

} // namespace
} // namespace ksweep::validate
