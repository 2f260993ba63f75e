// Report rendering: the Markdown tables, the JSON with every sample, the SVG picture.
#include "require_env.h"
#include "validate/report_render.h"
#include "validate/stats.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>

namespace ksweep::validate {
namespace {

BootRun boot(const std::string& variant, int number, std::int64_t base_ns, size_t n) {
    BootRun b;
    b.variant = variant;
    b.boot = number;
    b.ok = b.pcr_passed = true;
    b.wall_seconds = 30;
    for (size_t i = 0; i < n; ++i)
        b.samples.push_back({static_cast<std::uint32_t>(i),
                             base_ns + static_cast<std::int64_t>(i % 7) * base_ns / 10, 0});
    return b;
}

ValidationReport sample_report() {
    ValidationReport r;
    r.tool_version = "ksweep test";
    r.tree = "/src/linux";
    r.series = "patches/nuvoton";
    r.headers_dir = "/usr/src/linux-headers-6.1.0-0-test";
    r.config_hz = 250;
    r.levels = {1, 2, 3, 4};
    r.boots = 2;
    r.extends = 20;
    PatchResult p;
    p.number = 1;
    p.subject = "tpm: tpm_i2c_nuvoton: use usleep_range() | for short sleeps";
    p.files = {"drivers/char/tpm/tpm_i2c_nuvoton.c"};
    for (auto& level : p.levels)
        level.status = LevelStatus::passed;
    p.levels[1].message = "0 errors, 0 warnings, 0 checks";
    DeviceRun run;
    run.driver = "tpm_i2c_nuvoton";
    run.profile = "qemu/profiles/nuvoton_npct75x.yaml";
    run.extends = 20;
    run.boots = {boot("baseline", 1, 24000000, 20), boot("patched", 1, 2600000, 20),
                 boot("baseline", 2, 24000000, 20), boot("patched", 2, 2600000, 20)};
    summarize_device_run(run);
    p.devices.push_back(run);
    r.patches.push_back(p);
    return r;
}

// The seed's table: one row per guest HZ, baseline vs patched medians and their ratio, each row
// naming the guest kernel and the HZ the guest counted.
TEST(ReportTest, OneRowPerGuestHzWithItsKernelAndRatio) {
    ValidationReport r = sample_report();
    r.guest_hz = {250, 1000};
    r.guest_hz_source = "--hz";
    r.kernel_release = "6.12.7";
    PatchResult& p = r.patches.front();
    DeviceRun& at250 = p.devices.front();
    at250.hz = 250;
    at250.guest_release = "6.12.7";
    for (auto& b : at250.boots)
        b.measured_hz = 250;
    DeviceRun at1000;
    at1000.driver = "tpm_i2c_nuvoton";
    at1000.hz = 1000;
    at1000.guest_release = "6.12.7";
    at1000.extends = 20;
    at1000.boots = {boot("baseline", 1, 8000000, 20), boot("patched", 1, 2600000, 20)};
    for (auto& b : at1000.boots)
        b.measured_hz = 1000;
    summarize_device_run(at1000);
    p.devices.push_back(at1000);

    std::string md = render_markdown(r);
    EXPECT_NE(md.find("HZ 250, 1000 (--hz), release 6.12.7"), std::string::npos) << md;
    EXPECT_NE(md.find("### Patch 1, tpm_i2c_nuvoton: per HZ"), std::string::npos) << md;
    EXPECT_TRUE(std::regex_search(
        md, std::regex(
                R"(\| 250 \| 6\.12\.7 \| 250 \| [0-9.]+ ms \| [0-9.]+ ms \| median ratio 0\.11x)")))
        << md;
    EXPECT_TRUE(std::regex_search(
        md, std::regex(
                R"(\| 1000 \| 6\.12\.7 \| 1000 \| [0-9.]+ ms \| [0-9.]+ ms \| median ratio 0\.3)")))
        << md;
    EXPECT_NE(md.find("### Patch 1, tpm_i2c_nuvoton in QEMU, HZ=1000"), std::string::npos);

    std::string js = render_json(r);
    EXPECT_NE(js.find("\"guest_hz\": [250, 1000]"), std::string::npos) << js.substr(0, 800);
    EXPECT_NE(js.find("\"hz\": 1000, \"interrupt\": null, \"guest_release\": \"6.12.7\""),
              std::string::npos);
    EXPECT_NE(js.find("\"measured_hz\": 1000"), std::string::npos);
}

// A variant whose boots ran no extend has no median and no violations to report: it says so
// instead of "0.0 us" and "none".
TEST(ReportTest, AVariantWithoutExtendsSaysSo) {
    ValidationReport r = sample_report();
    DeviceRun& run = r.patches.front().devices.front();
    for (auto& b : run.boots)
        if (b.variant == "patched") {
            b.samples.clear();
            b.ok = b.pcr_passed = false;
            b.message = "the guest stopped in phase 'probe'";
        }
    summarize_device_run(run);
    std::string md = render_markdown(r);
    EXPECT_NE(md.find("patched no extends ran."), std::string::npos) << md;
    EXPECT_NE(md.find("| no extends ran | -"), std::string::npos) << md;
    EXPECT_EQ(md.find("0.0 us"), std::string::npos) << md;
}

TEST(ReportTest, DurationsInTheUnitAReaderExpects) {
    EXPECT_EQ(format_duration_us(812.4), "812 us");
    EXPECT_EQ(format_duration_us(12345), "12.3 ms");
    EXPECT_EQ(format_duration_us(4860000), "4.86 s");
}

TEST(ReportTest, MarkdownHasVerdictLevelsAndTheVariantTable) {
    std::string md = render_markdown(sample_report(), {"chart.svg"});
    EXPECT_NE(md.find("# ksweep validate: PASSED"), std::string::npos);
    // The pipe in the subject is escaped, so the table keeps its columns.
    EXPECT_NE(md.find("use usleep_range() \\| for short sleeps"), std::string::npos);
    EXPECT_NE(md.find("**passed**: 0 errors, 0 warnings, 0 checks"), std::string::npos);
    EXPECT_NE(md.find("| variant | boots | extends | total time | min - max | median | p95 |"),
              std::string::npos);
    // Baseline: 40 samples of 24..38.4 ms; the ratio column is relative to it.
    EXPECT_TRUE(std::regex_search(
        md,
        std::regex(
            R"(\| baseline \| 2 \| 40 \| [0-9.]+ s \| 24\.0 ms - 38\.4 ms \| [0-9.]+ ms \| [0-9.]+ ms \| 1\.00x \|)")))
        << md;
    EXPECT_TRUE(std::regex_search(md, std::regex(R"(\| patched \| 2 \| 40 \| .* \| 0\.11x \|)")))
        << md;
    EXPECT_NE(md.find("![tpm_i2c_nuvoton TPM2_PCR_Extend latency, baseline vs patched](chart.svg)"),
              std::string::npos);
}

TEST(ReportTest, MarkdownGivesTheRatioWithItsIntervalAndTest) {
    std::string md = render_markdown(sample_report());
    // Patched is 0.108x the baseline extend for extend: the interval is narrow, the test certain.
    EXPECT_TRUE(std::regex_search(
        md, std::regex(R"(\nPatched vs baseline: median ratio 0\.11x \(95 % CI 0\.1[01]-0\.1[12], )"
                       R"(Mann-Whitney p < 0\.001\); bootstrap over the pooled extends\. Called )"
                       R"(slower only when the whole interval is above 1\.10x\.\n)")))
        << md;

    // Too few extends: the sentence says there is no interval rather than inventing one.
    ValidationReport r = sample_report();
    DeviceRun& run = r.patches[0].devices[0];
    run.boots = {boot("baseline", 1, 24000000, 3), boot("patched", 1, 2600000, 3)};
    summarize_device_run(run);
    md = render_markdown(r);
    EXPECT_NE(md.find("median ratio 0.11x (too few samples for a confidence interval, "
                      "Mann-Whitney p = 0.08)"),
              std::string::npos)
        << md;
}

TEST(ReportTest, JsonHasTheIntervalAndPValueNextToTheRatio) {
    ValidationReport r = sample_report();
    const DeviceRun& run = r.patches[0].devices[0];
    ASSERT_GT(run.median_ratio_high, 0);
    std::string js = render_json(r);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        js, m,
        std::regex(R"("median_ratio": 0\.108, "median_ratio_low": (0\.[0-9]+), )"
                   R"("median_ratio_high": (0\.[0-9]+), "mann_whitney_p": ([0-9.]+e-[0-9]+),)")))
        << js;
    // Patched is 0.108x the baseline extend for extend: the interval brackets it, narrowly; no
    // overlap at all between the variants puts p far below what three decimals could show.
    EXPECT_LT(std::stod(m[1]), 0.108);
    EXPECT_GT(std::stod(m[1]), 0.09);
    EXPECT_GT(std::stod(m[2]), 0.108);
    EXPECT_LT(std::stod(m[2]), 0.13);
    EXPECT_LT(std::stod(m[3]), 1e-10);

    // Not computed: null, never a made-up 0 interval or p.
    r.patches[0].devices[0].boots = {boot("baseline", 1, 24000000, 20)};
    summarize_device_run(r.patches[0].devices[0]);
    js = render_json(r);
    EXPECT_NE(js.find(R"("median_ratio": 0, "median_ratio_low": null, "median_ratio_high": null, )"
                      R"("mann_whitney_p": null,)"),
              std::string::npos)
        << js;
}

TEST(ReportTest, LevelLinesListEachPatchAndTheLevelsThatRan) {
    ValidationReport r = sample_report();
    r.errors = {"no headers"};
    r.patches[0].levels[2].status = LevelStatus::skipped; // not run: not listed
    std::string text = render_level_lines(r, "  ");
    EXPECT_EQ(text.substr(0, text.find('\n', text.find("L2"))),
              "  error: no headers\n"
              "  1/1 tpm: tpm_i2c_nuvoton: use usleep_range() | for short sleeps\n"
              "      L1 passed         \n"
              "      L2 passed         0 errors, 0 warnings, 0 checks");
    EXPECT_EQ(text.find("L3"), std::string::npos) << text;
    EXPECT_NE(text.find("      L4 passed"), std::string::npos) << text;
}

TEST(ReportTest, FailedLevelMakesTheReportFail) {
    ValidationReport r = sample_report();
    r.patches[0].levels[3].status = LevelStatus::failed;
    r.patches[0].levels[3].message = "patched: min_status_gap violated 12 times";
    std::string md = render_markdown(r);
    EXPECT_NE(md.find("# ksweep validate: FAILED"), std::string::npos);
    EXPECT_NE(md.find("**FAILED**: patched: min_status_gap violated 12 times"), std::string::npos);
    EXPECT_NE(render_json(r).find("\"passed\": false"), std::string::npos);
}

TEST(ReportTest, NotBuiltIsNotPassedButDoesNotFail) {
    ValidationReport r = sample_report();
    r.patches[0].levels[2].status = LevelStatus::not_built;
    r.patches[0].levels[2].message = "not built (CONFIG_TCG_TIS_I2C not set)";
    EXPECT_TRUE(r.passed());
    std::string md = render_markdown(r);
    EXPECT_NE(md.find("| not built: not built (CONFIG_TCG_TIS_I2C not set) |"), std::string::npos);
}

TEST(ReportTest, JsonHasEverySampleAndEscapesStrings) {
    ValidationReport r = sample_report();
    r.errors.push_back("a \"quoted\"\nmessage\\");
    std::string js = render_json(r);
    size_t samples = 0;
    for (size_t at = js.find("{\"i\": "); at != std::string::npos; at = js.find("{\"i\": ", at + 1))
        ++samples;
    EXPECT_EQ(samples, 80u);
    EXPECT_NE(js.find(R"("a \"quoted\"\nmessage\\")"), std::string::npos);
    EXPECT_TRUE(std::regex_search(js, std::regex(R"("median_ratio": 0\.10[0-9])"))) << js;
    EXPECT_NE(js.find("\"L3\": {\"status\": \"passed\""), std::string::npos);
    // Balanced brackets outside strings: a cheap well-formedness check (the integration test
    // parses it for real with python3's json module).
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < js.size(); ++i) {
        char c = js[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            ASSERT_GT(depth, 0);
            --depth;
        }
    }
    EXPECT_EQ(depth, 0);
}

TEST(ReportTest, SvgHasBothVariantsMediansAndLabelledAxes) {
    ValidationReport r = sample_report();
    std::string svg = render_latency_svg(r.patches[0].devices[0], "tpm_i2c_nuvoton & friends");
    EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
    EXPECT_NE(svg.find("<g class=\"bars-baseline\""), std::string::npos);
    EXPECT_NE(svg.find("<g class=\"bars-patched\""), std::string::npos);
    EXPECT_NE(svg.find("class=\"median-baseline\""), std::string::npos);
    EXPECT_NE(svg.find("class=\"median-patched\""), std::string::npos);
    EXPECT_NE(svg.find("baseline median "), std::string::npos);
    EXPECT_NE(svg.find("(log scale)</text>"), std::string::npos);
    EXPECT_NE(svg.find("% of the variant's extends</text>"), std::string::npos);
    EXPECT_NE(svg.find("tpm_i2c_nuvoton &amp; friends"), std::string::npos);
    EXPECT_NE(svg.find(">10 ms</text>"), std::string::npos); // an x tick in time units
    // The baseline median line is right of the patched one (log axis, larger time).
    std::smatch mb, mp;
    ASSERT_TRUE(std::regex_search(svg, mb, std::regex(R"(class="median-baseline" x1="([0-9.]+))")));
    ASSERT_TRUE(std::regex_search(svg, mp, std::regex(R"(class="median-patched" x1="([0-9.]+))")));
    EXPECT_GT(std::stod(mb[1]), std::stod(mp[1]));
}

TEST(ReportTest, SvgIsWellFormedForARealRenderer) {
    if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0)
        KSWEEP_SKIP_OR_FAIL("rsvg-convert not installed (scripts/setup.sh installs librsvg2-bin)");
    auto dir = std::filesystem::temp_directory_path() / ("ksweep-svg-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "chart.svg")
        << render_latency_svg(sample_report().patches[0].devices[0], "extend latency");
    std::string cmd = "rsvg-convert -o " + (dir / "chart.png").string() + " " +
                      (dir / "chart.svg").string() + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_GT(std::filesystem::file_size(dir / "chart.png"), 1000u);
    std::filesystem::remove_all(dir);
}

TEST(ReportTest, SvgWithoutSamplesSaysSo) {
    DeviceRun empty;
    EXPECT_NE(render_latency_svg(empty, "x").find("no successful extends"), std::string::npos);
}

} // namespace
} // namespace ksweep::validate
