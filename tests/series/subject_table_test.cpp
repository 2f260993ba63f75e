// The table of subsystem subject conventions (rules/subject_prefixes.yaml): one test per
// convention family of the shipped table, how entries are chosen, the subjects assembled from
// them, the order history > table > heuristic, and positioned errors for malformed files.
#include "series/message.h"
#include "series/prefix.h"
#include "series/series.h"
#include "series/subject_table.h"
#include "test_repo.h"

#include <gtest/gtest.h>

using namespace ksweep;
using namespace ksweep::series;
using namespace ksweep::test;

namespace {

const SubjectTable& shipped() {
    return shipped_subject_table();
}

std::string subject(const std::string& file, const std::string& module) {
    auto prefix = shipped().prefix_for(file, module);
    EXPECT_TRUE(prefix) << file;
    return full_summary(prefix.value_or(""), "Use usleep_range() for short sleeps");
}

TEST(SubjectTable, ShippedTableLoads) {
    EXPECT_EQ(shipped().source_path, default_subject_table_path());
    EXPECT_GT(shipped().entries.size(), 20u);
}

// Input writes "Input: driver - summary": a dash and no colon after the driver.
TEST(SubjectTable, InputTakesADashWithoutColon) {
    EXPECT_EQ(shipped().prefix_for("drivers/input/joystick/xpad.c", "xpad"), "Input: xpad -");
    EXPECT_EQ(subject("drivers/input/joystick/xpad.c", "xpad"),
              "Input: xpad - Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/input/touchscreen/sur40.c", "sur40"),
              "Input: sur40 - Use usleep_range() for short sleeps");
    // The input core is "Input:" alone.
    EXPECT_EQ(subject("drivers/input/input.c", "input-core"),
              "Input: Use usleep_range() for short sleeps");
}

// hwmon writes "hwmon: (driver) summary"; PMBus drivers "hwmon: (pmbus/driver)".
TEST(SubjectTable, HwmonPutsTheDriverInParentheses) {
    EXPECT_EQ(subject("drivers/hwmon/lm90.c", "lm90"),
              "hwmon: (lm90) Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/hwmon/pmbus/ltc2978.c", "ltc2978"),
              "hwmon: (pmbus/ltc2978) Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/hwmon/pmbus/pmbus_core.c", "pmbus_core"),
              "hwmon: (pmbus/core) Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/hwmon/hwmon.c", "hwmon"),
              "hwmon: Use usleep_range() for short sleeps");
}

// drm names the driver's directory: drm/radeon, and amd's subdirectories by their own names.
TEST(SubjectTable, DrmNamesTheDirectory) {
    EXPECT_EQ(shipped().prefix_for("drivers/gpu/drm/radeon/evergreen.c", "radeon"), "drm/radeon:");
    EXPECT_EQ(subject("drivers/gpu/drm/gma500/cdv_intel_dp.c", "gma500_gfx"),
              "drm/gma500: Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/gpu/drm/amd/amdgpu/gfx_v10_0.c", "amdgpu"),
              "drm/amdgpu: Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/gpu/drm/amd/display/dc/core/dc_link.c", "amdgpu"),
              "drm/amd/display: Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/gpu/drm/i915/display/intel_dp.c", "i915"),
              "drm/i915/display: Use usleep_range() for short sleeps");
    // A file right in drm/ has no directory to name: the next template, "drm:".
    EXPECT_EQ(subject("drivers/gpu/drm/drm_edid.c", "drm"),
              "drm: Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/gpu/drm/panel/panel-ilitek-ili9881c.c", "panel-ilitek-ili9881c"),
              "drm/panel: ilitek-ili9881c: Use usleep_range() for short sleeps");
}

// iio has two levels: the kind of sensor (the directory), then the driver.
TEST(SubjectTable, IioNamesKindThenDriver) {
    EXPECT_EQ(subject("drivers/iio/adc/hx711.c", "hx711"),
              "iio: adc: hx711: Use usleep_range() for short sleeps");
    EXPECT_EQ(subject("drivers/iio/proximity/srf08.c", "srf08"),
              "iio: proximity: srf08: Use usleep_range() for short sleeps");
    // A driver in its own directory is named after it (module inv-mpu6050)...
    EXPECT_EQ(shipped().prefix_for("drivers/iio/imu/inv_mpu6050/inv_mpu_core.c", "inv-mpu6050"),
              "iio: imu: inv_mpu6050:");
    // ...but the kind directory is not a driver name ("accel" in bmc150-accel-core).
    EXPECT_EQ(shipped().prefix_for("drivers/iio/accel/bmc150-accel-core.c", "bmc150-accel-core"),
              "iio: accel: bmc150-accel-core:");
    EXPECT_EQ(shipped().prefix_for("drivers/iio/industrialio-core.c", "industrialio"),
              "iio: core:");
}

// ASoC codecs: "ASoC: codecs: name:", the module's snd-soc- taken off; vendor directories
// name themselves.
TEST(SubjectTable, AsocCodecsAndVendors) {
    EXPECT_EQ(subject("sound/soc/codecs/wm8904.c", "snd-soc-wm8904"),
              "ASoC: codecs: wm8904: Use usleep_range() for short sleeps");
    EXPECT_EQ(shipped().prefix_for("sound/soc/sh/hac.c", "snd-soc-sh4-hac"), "ASoC: sh:");
    EXPECT_EQ(shipped().prefix_for("sound/soc/soc-ac97.c", "snd-soc-core"), "ASoC: core:");
    EXPECT_EQ(shipped().prefix_for("sound/pci/hda/patch_realtek.c", "snd-hda-codec-realtek"),
              "ALSA: hda/realtek:");
}

TEST(SubjectTable, LongestPathWinsAndModuleEntriesBeatPlainOnes) {
    SubjectTable t =
        parse_subject_table("prefixes:\n"
                            "  - {path: drivers/, subject: \"any:\"}\n"
                            "  - {path: drivers/usb/host/, subject: \"host: {driver}:\"}\n"
                            "  - {path: drivers/usb/, subject: \"usb: {dir}:\"}\n"
                            "  - {path: drivers/usb/host/, module: core, subject: \"core:\"}\n"
                            "  - {path: drivers/usb/host/xhci, subject: \"xhci:\"}\n",
                            "t.yaml");
    EXPECT_EQ(t.prefix_for("drivers/usb/host/xhci-hub.c", "xhci-hcd"), "xhci:");
    EXPECT_EQ(t.prefix_for("drivers/usb/host/sl811-hcd.c", "sl811-hcd"), "host: sl811-hcd:");
    EXPECT_EQ(t.prefix_for("drivers/usb/host/core.c", "core"), "core:");
    EXPECT_EQ(t.prefix_for("drivers/usb/dwc3/gadget.c", "dwc3"), "usb: dwc3:");
    EXPECT_EQ(t.prefix_for("drivers/char/mem.c", ""), "any:");
    EXPECT_EQ(t.prefix_for("fs/ext4/inode.c", "ext4"), std::nullopt);
    // An entry none of whose templates fill gives way to the next shorter one.
    EXPECT_EQ(t.prefix_for("drivers/usb/usb-common.c", "usb-common"), "any:");
    // The shipped table: xhci's core module beats drivers/usb/host/, which beats drivers/usb/.
    EXPECT_EQ(shipped().prefix_for("drivers/usb/host/xhci-hub.c", "xhci-hcd"), "usb: xhci:");
    EXPECT_EQ(shipped().prefix_for("drivers/usb/host/ohci-at91.c", "ohci-at91"), "usb: ohci-at91:");
    EXPECT_EQ(shipped().prefix_for("drivers/usb/dwc3/core.c", "dwc3"), "usb: dwc3:");
}

TEST(SubjectTable, DriverPlaceholderStripsAndNamesOwnDirectory) {
    EXPECT_EQ(shipped().prefix_for("drivers/i2c/busses/i2c-amd8111.c", "i2c-amd8111"),
              "i2c: amd8111:");
    EXPECT_EQ(shipped().prefix_for("drivers/char/tpm/st33zp24/st33zp24.c", "tpm_st33zp24"),
              "tpm: st33zp24:");
    EXPECT_EQ(shipped().prefix_for("drivers/net/wireless/ath/ath9k/htc_drv_main.c", "ath9k_htc"),
              "wifi: ath9k:");
    // "mvm" is in "iwlmvm" but not as a part of its own: iwlwifi's entry names the directory.
    EXPECT_EQ(shipped().prefix_for("drivers/net/wireless/intel/iwlwifi/mvm/ops.c", "iwlmvm"),
              "wifi: iwlwifi: mvm:");
    EXPECT_EQ(shipped().prefix_for("arch/arm/mach-pxa/ezx.c", ""), "ARM: pxa:");
}

// A prefix with its own separator is followed by a space, one ending in a tag by ": ".
TEST(SubjectTable, SubjectJoinsPrefixBySeparator) {
    const std::string s = "Use usleep_range() for short sleeps";
    EXPECT_EQ(full_summary("Input: xpad -", s), "Input: xpad - " + s);
    EXPECT_EQ(full_summary("hwmon: (lm90)", s), "hwmon: (lm90) " + s);
    EXPECT_EQ(full_summary("ASoC: codecs: wm8904:", s), "ASoC: codecs: wm8904: " + s);
    EXPECT_EQ(full_summary("tpm: tpm_nsc", s), "tpm: tpm_nsc: " + s);
    // The 75-column cap counts the separator once.
    std::string capped = full_summary("Input: xpad -", s + " and more words than fit in one line");
    EXPECT_LE(capped.size(), 75u);
    EXPECT_EQ(capped.rfind("Input: xpad - Use ", 0), 0u) << capped;
}

const char* kMaintainers = "List of maintainers\n"
                           "-------------------\n\n"
                           "CHAR AND MISC DRIVERS\n"
                           "M:\tArnd Bergmann <arnd@arndb.de>\n"
                           "S:\tSupported\n"
                           "F:\tdrivers/char/\n\n"
                           "INPUT (KEYBOARD, MOUSE, JOYSTICK, TOUCHSCREEN) DRIVERS\n"
                           "M:\tDmitry Torokhov <dmitry.torokhov@gmail.com>\n"
                           "L:\tlinux-input@vger.kernel.org\n"
                           "S:\tMaintained\n"
                           "F:\tdrivers/input/\n";

TEST(PrefixFromMaintainers, TableFirstThenThePathHeuristic) {
    TempDir tmp;
    write_file(tmp.path() + "/MAINTAINERS", kMaintainers);
    Maintainers m = Maintainers::load(tmp.path());
    // Covered by the table: its convention, a trailing colon left to the subject.
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/input/joystick/xpad.c", "xpad"), "Input: xpad -");
    EXPECT_EQ(prefix_from_path(m, "drivers/input/joystick/xpad.c", "xpad"), "input: xpad");
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/char/tpm/tpm_nsc.c", "tpm_nsc"), "tpm: tpm_nsc");
    // Not covered: the heuristic, as before the table.
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/char/apm-emulation.c", "apm-emulation"),
              "char: apm-emulation");
    SubjectTable empty = parse_subject_table("prefixes: []\n", "empty.yaml");
    EXPECT_EQ(prefix_from_maintainers(m, "drivers/input/joystick/xpad.c", "xpad", empty),
              "input: xpad");
}

// write_series end to end: a tree without history takes the table's prefix, a repository with
// history the history's.
class SubjectOrderTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repo = tmp.path() + "/linux";
        init_repo(repo);
        write_file(repo + "/MAINTAINERS", kMaintainers);
        write_file(repo + "/drivers/input/joystick/Makefile",
                   "obj-$(CONFIG_JOYSTICK_XPAD) += xpad.o\n");
        write_file(repo + "/drivers/input/joystick/xpad.c", source("msleep(5)"));
        run_git(repo, "add -A");
        run_git(repo, "commit -q -m 'Import'");

        fix.scan.hz = 250;
        fix.scan.kernel = KernelVersion{6, 1, 0};
        FileFix f;
        f.file = "drivers/input/joystick/xpad.c";
        f.original = source("msleep(5)");
        f.fixed = source("usleep_range(5000, 6250)");
        f.slack_us = 1250;
        SiteOutcome site;
        site.fixed = true;
        site.how = "literal";
        site.finding.file = f.file;
        site.finding.line = 6;
        site.finding.function = "xpad_wait";
        site.finding.callee = "msleep";
        site.finding.call = "msleep(5)";
        site.finding.argument = "5";
        site.finding.value = 5;
        site.finding.predicted_sleep_ms = 12;
        site.finding.actionable = true;
        f.sites.push_back(site);
        fix.files.push_back(f);

        opts.tree = repo;
        opts.out_dir = tmp.path() + "/out";
        opts.cache_dir = tmp.path() + "/cache";
        opts.now = 1790000000;
        opts.signature = "ksweep test";
        opts.signoff = "Test Maintainer <test@example.org>";
    }

    static std::string source(const std::string& call) {
        return "// SPDX-License-Identifier: GPL-2.0\n#include <linux/delay.h>\n\n"
               "static void xpad_wait(void)\n{\n\t" +
               call + ";\n}\n";
    }

    std::string only_subject() {
        SeriesResult r = write_series(rule, fix, opts);
        EXPECT_EQ(r.series.size(), 1u);
        EXPECT_EQ(r.series.at(0).subjects.size(), 1u);
        return r.series.at(0).subjects.at(0);
    }

    Rule rule = load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
    TempDir tmp;
    std::string repo;
    FixResult fix;
    SeriesOptions opts;
};

TEST_F(SubjectOrderTest, TreeOutsideGitTakesTheTablesPrefix) {
    std::string plain = tmp.path() + "/plain";
    run("cp -a " + quote(repo) + " " + quote(plain) + " && rm -rf " + quote(plain + "/.git"));
    opts.tree = plain;
    // Input's verb is lower case after the dash (the table's verb: lower).
    EXPECT_EQ(only_subject(), "Input: xpad - use usleep_range() for short sleeps");
}

TEST_F(SubjectOrderTest, RepositoryWithoutHistoryOfTheFileTakesTheTablesPrefix) {
    EXPECT_EQ(only_subject(), "Input: xpad - use usleep_range() for short sleeps");
}

// Commits that touch xpad.c, each subject with `prefix`.
void touch_xpad(const std::string& repo, const std::string& prefix, int commits) {
    const std::string file = repo + "/drivers/input/joystick/xpad.c";
    for (int i = 0; i < commits; ++i) {
        const std::string text = read_file(file);
        write_file(file, i % 2 ? text.substr(0, text.size() - 1) : text + "\n");
        run_git(repo, "commit -q -am " + quote(prefix + " Blank line " + std::to_string(i)));
    }
}

TEST_F(SubjectOrderTest, HistoryOfEnoughCommitsWinsOverTheTable) {
    touch_xpad(repo, "joystick: xpad:", kMinAgreeingSubjects + 1); // even: xpad.c as it was
    EXPECT_EQ(only_subject(), "joystick: xpad: Use usleep_range() for short sleeps");
}

TEST_F(SubjectOrderTest, AFewLocalCommitsDoNotDecideThePrefix) {
    touch_xpad(repo, "joystick: xpad:", 2);
    EXPECT_EQ(only_subject(), "Input: xpad - use usleep_range() for short sleeps");
}

// Malformed files fail with file:line:col, like rules and device profiles.
std::string error_of(const std::string& yaml) {
    try {
        parse_subject_table(yaml, "rules/subject_prefixes.yaml");
    } catch (const SubjectTableError& e) {
        return e.what();
    }
    return "no error";
}

TEST(SubjectTableErrors, ArePositioned) {
    EXPECT_EQ(error_of("prefixes:\n  - {path: drivers/input/, subject: \"Input: {drvier} -\"}\n"),
              "rules/subject_prefixes.yaml:2:37: unknown placeholder {drvier} (known: {driver}, "
              "{dir}, {file})");
    EXPECT_EQ(error_of("prefixes:\n  - path: drivers/hwmon/\n    subject: \"hwmon: {driver}\"\n"),
              "rules/subject_prefixes.yaml:3:14: subject 'hwmon: {driver}' must end in ':', '-' "
              "or ')', the separator before the summary");
    EXPECT_EQ(error_of("prefixes:\n  - path: drivers/hwmon/\n"),
              "rules/subject_prefixes.yaml:2:5: a prefixes entry needs 'subject'");
    EXPECT_EQ(error_of("prefixes:\n  - {path: drivers/x/, subject: \"x:\", modul: x}\n"),
              "rules/subject_prefixes.yaml:2:39: unknown key 'modul'");
    EXPECT_EQ(
        error_of("prefixes:\n  - {path: a/, subject: \"a:\"}\n  - {path: a/, subject: \"b:\"}\n"),
        "rules/subject_prefixes.yaml:3:5: a second entry for a/ (the first is on line 2)");
    EXPECT_EQ(error_of("prefixes:\n  - {path: /drivers/, subject: \"a:\"}\n"),
              "rules/subject_prefixes.yaml:2:12: path must be a tree-relative prefix such as "
              "drivers/hwmon/");
    // Not YAML at all: the parser's own position.
    std::string bad = error_of("prefixes:\n  - {path: a/, subject: \"a:\"\n");
    EXPECT_EQ(bad.rfind("rules/subject_prefixes.yaml:", 0), 0u) << bad;
    EXPECT_NE(bad.find(":3:"), std::string::npos) << bad;
    EXPECT_EQ(error_of(""), "rules/subject_prefixes.yaml:1:1: a subject prefix table must be a "
                            "mapping");
}

TEST(SubjectTableErrors, MissingFileIsNamed) {
    EXPECT_THROW(load_subject_table("/nonexistent/subject_prefixes.yaml"), SubjectTableError);
}

} // namespace
