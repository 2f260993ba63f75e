// LAVA: the jobs ksweep writes pass lava-server's own schema check (Debian's lava-common), and
// results in lava-run's and lava-server's forms come back as L4 boots; results of another
// series, version or patch, failed or unfinished jobs and missing artifacts are refused.
#include "core/file_io.h"
#include "core/process.h"
#include "device/device_registry.h"
#include "guest/pcr_check.h"
#include "guest/qemu_runner.h"
#include "require_env.h"
#include "validate/lava_export.h"
#include "validate/lava_results.h"
#include "validate/stats.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace ksweep::validate {
namespace {

// Debian's system python: lava-common is installed for it, not for a pyenv python on PATH.
constexpr const char* kPython = "/usr/bin/python3";

LavaBootKey sample_key(const std::string& variant = "baseline", int boot = 1) {
    LavaBootKey key;
    key.version = "0.1.0";
    key.series = "nuvoton";
    key.series_sha256 = std::string(64, 'a');
    key.patch = 2;
    key.patch_sha256 = std::string(64, 'b');
    key.device = "tpm_i2c_nuvoton";
    key.variant = variant;
    key.boot = boot;
    key.hz = 250;
    key.extends = 4;
    key.pcr_bank = "sha256";
    return key;
}

LavaExpectation sample_expectation() {
    return {"0.1.0", std::string(64, 'a'), {{1, std::string(64, 'c')}, {2, std::string(64, 'b')}}};
}

guest::GuestRunOptions sample_run(const fs::path& dir) {
    guest::GuestRunOptions run;
    run.kernel_image = (dir / "vmlinux").string();
    run.initramfs = (dir / "initramfs.cpio.gz").string();
    run.profile = (dir / "nuvoton.yaml").string();
    std::ofstream(run.kernel_image) << "kernel";
    std::ofstream(run.initramfs) << "initramfs";
    std::ofstream(run.profile) << "profile";
    run.device.driver = "tpm_i2c_nuvoton";
    run.device.i2c_address = 0x2e;
    run.device.i2c_device_id = "tpm2_i2c_nuvoton";
    run.extends = 4;
    return run;
}

// lava_common.schemas.validate(job, strict=True): what lava-server runs on submission.
std::string schema_errors(const fs::path& job) {
    CommandResult r = run_command({kPython, "-c",
                                   "import sys, yaml\nfrom lava_common.schemas import validate\n"
                                   "validate(yaml.safe_load(open(sys.argv[1])), strict=True)\n",
                                   job.string()},
                                  "", std::chrono::seconds(60));
    return r.status == 0 ? "" : r.output;
}

bool have_lava_common() {
    return run_command({kPython, "-c", "import lava_common.schemas"}, "", std::chrono::seconds(30))
               .status == 0;
}

TEST(LavaExport, EveryJobPassesTheLavaSchemaAndTheManifestHasEachArtifactOnce) {
    if (!have_lava_common())
        KSWEEP_SKIP_OR_FAIL("lava-common missing for /usr/bin/python3: run scripts/setup.sh");
    TempDir dir("ksweep-lava-export");
    guest::GuestRunOptions run = sample_run(dir.path());
    LavaExport lava((dir.path() / "lava").string(), "");
    for (int boot = 1; boot <= 2; ++boot)
        for (const char* variant : {"baseline", "patched"})
            lava.add_boot(sample_key(variant, boot), run);
    std::string manifest_path = lava.write_manifest();

    auto manifest = nlohmann::json::parse(*read_file(manifest_path));
    ASSERT_EQ(manifest["jobs"].size(), 4u);
    // One kernel, one initramfs, one profile: equal contents are one artifact.
    ASSERT_EQ(manifest["artifacts"].size(), 3u);
    for (const auto& artifact : manifest["artifacts"]) {
        fs::path file = dir.path() / "lava/artifacts" / artifact["name"].get<std::string>();
        EXPECT_EQ(to_hex(sha256(*read_file(file))), artifact["sha256"]);
        EXPECT_EQ(artifact["url"], "file://" + file.string());
    }
    for (const auto& job : manifest["jobs"]) {
        fs::path file = dir.path() / "lava" / job["file"].get<std::string>();
        EXPECT_EQ(schema_errors(file), "") << file;
        std::string text = *read_file(file);
        // The emulated TPM and the guest clock: the very arguments a local boot passes to QEMU.
        for (const auto& arg :
             guest::vhost_user_i2c_args(run.memory_mb, "/run/ksweep/tpm_i2c_nuvoton.sock"))
            EXPECT_NE(text.find(arg), std::string::npos) << arg;
        EXPECT_NE(text.find("- -icount shift=0"), std::string::npos);
        EXPECT_NE(text.find("name: ksweep_tpmd_tpm_i2c_nuvoton"), std::string::npos);
        EXPECT_NE(text.find("ksweep.lava=1"), std::string::npos);
        EXPECT_NE(text.find("ksweep.patch_sha256: \"" + std::string(64, 'b') + "\""),
                  std::string::npos);
        EXPECT_EQ(job["metadata"]["ksweep.series"], "nuvoton");
    }
}

TEST(LavaExport, ArtifactsUrlIsTheGivenBase) {
    TempDir dir("ksweep-lava-url");
    LavaExport lava((dir.path() / "lava").string(), "https://lab.example/ksweep/run1/");
    lava.add_boot(sample_key(), sample_run(dir.path()));
    auto manifest = nlohmann::json::parse(*read_file(lava.write_manifest()));
    for (const auto& artifact : manifest["artifacts"])
        EXPECT_EQ(artifact["url"].get<std::string>().rfind("https://lab.example/ksweep/run1/", 0),
                  0u);
}

TEST(LavaExport, ABoardJobWithoutTheEmulatorPassesTheSchema) {
    if (!have_lava_common())
        KSWEEP_SKIP_OR_FAIL("lava-common missing for /usr/bin/python3: run scripts/setup.sh");
    TempDir dir("ksweep-lava-board");
    LavaJob job;
    job.key = sample_key();
    job.device_type = "x86";
    job.kernel = {"https://lab.example/vmlinuz", std::string(64, '1')};
    job.ramdisk = {"https://lab.example/initramfs.cpio.gz", std::string(64, '2')};
    fs::path file = dir.path() / "board.yaml";
    std::ofstream(file) << lava_job_yaml(job);
    EXPECT_EQ(schema_errors(file), "");
    EXPECT_EQ(read_file(file)->find("command:"), std::string::npos);
}

TEST(LavaExport, AMissingArtifactIsNamed) {
    TempDir dir("ksweep-lava-missing");
    guest::GuestRunOptions run = sample_run(dir.path());
    fs::remove(run.initramfs);
    LavaExport lava((dir.path() / "lava").string(), "");
    try {
        lava.add_boot(sample_key(), run);
        FAIL() << "a missing initramfs was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(run.initramfs), std::string::npos) << e.what();
    }
}

// A PCR 16 chain the reader must accept: extends 0..count-1 into zero.
std::string final_pcr(std::uint32_t count) {
    return to_hex(guest::expected_pcr("sha256", Bytes(32, 0), count));
}

// A lava-run output directory as lava-run writes it (result.yaml, its log on stderr as
// output.yaml), with the job definition beside it.
fs::path lava_run_dir(const fs::path& root, const LavaBootKey& key, const std::string& job_result,
                      std::int64_t us, bool with_result = true) {
    fs::path dir = root / key.job_name();
    fs::create_directories(dir);
    LavaJob job;
    job.key = key;
    std::ofstream(dir / "job.yaml") << lava_job_yaml(job);
    if (with_result) {
        std::ofstream(dir / "result.yaml")
            << "case: job\ndefinition: lava\nresult: " << job_result
            << (job_result == "fail" ? "\nerror_type: Job\nerror_msg: 'lava-test-shell timed out "
                                       "after 600 seconds'\n"
                                     : "\n");
    }
    std::ofstream log(dir / "output.yaml");
    log << R"({"dt": "2026-12-02T03:00:00", "lvl": "target", "msg": "ksweep-guest: phase lava-shell"})"
        << "\n";
    for (std::uint32_t i = 0; i < key.extends; ++i)
        log << R"({"dt": "2026-12-02T03:00:01", "lvl": "results", "msg": {"case": "extend-)" << i
            << R"(", "definition": "0_ksweep-extend", "result": "pass", "measurement": )" << us + i
            << R"(.25, "units": "us"}})"
            << "\n";
    log << R"({"dt": "x", "lvl": "results", "msg": {"case": "pcr16-initial-)"
        << std::string(64, '0') << R"(", "definition": "0_ksweep-extend", "result": "pass"}})"
        << "\n";
    log << R"({"dt": "x", "lvl": "results", "msg": {"case": "pcr16-final-)"
        << final_pcr(key.extends) << R"(", "definition": "0_ksweep-extend", "result": "pass"}})"
        << "\n";
    log << R"({"dt": "x", "lvl": "results", "msg": {"case": "tpm_extend", "definition": "0_ksweep-extend", "result": "pass"}})"
        << "\n";
    return dir;
}

TEST(LavaResults, LavaRunOutputBecomesBootsWithSamplesAndThePcrCheck) {
    TempDir dir("ksweep-lava-results");
    lava_run_dir(dir.path(), sample_key("baseline"), "pass", 36000);
    lava_run_dir(dir.path(), sample_key("patched"), "pass", 10000);
    LavaResults results = LavaResults::load({dir.path().string()}, sample_expectation());
    ASSERT_EQ(results.size(), 2u);

    DeviceRun run;
    run.extends = 4;
    run.boots = {results.boot(sample_key("baseline")), results.boot(sample_key("patched"))};
    for (const auto& b : run.boots) {
        EXPECT_TRUE(b.ok) << b.message;
        EXPECT_TRUE(b.pcr_passed);
        ASSERT_EQ(b.samples.size(), 4u);
    }
    EXPECT_EQ(run.boots[0].samples[1].ns, 36001250); // us with three decimals, exactly
    summarize_device_run(run);
    EXPECT_NEAR(run.median_ratio, 10001.75 / 36001.75, 1e-9);

    BootRun missing = results.boot(sample_key("patched", 2));
    EXPECT_FALSE(missing.ok);
    EXPECT_NE(missing.message.find(sample_key("patched", 2).job_name()), std::string::npos);
}

TEST(LavaResults, ALavaServerExportIsReadLikeLavaRunOutput) {
    TempDir dir("ksweep-lava-server");
    LavaBootKey key = sample_key();
    fs::path job_dir = dir.path() / "1234";
    fs::create_directories(job_dir);
    LavaJob job;
    job.key = key;
    std::ofstream(job_dir / "job.yaml") << lava_job_yaml(job);
    std::ofstream out(job_dir / "results.yaml");
    // lava-server's /api/v0.2/jobs/ID/tests/?format=yaml: measurements as decimal strings.
    for (std::uint32_t i = 0; i < key.extends; ++i)
        out << "- {id: " << 100 + i << ", name: extend-" << i
            << ", suite: 0_ksweep-extend, result: pass, measurement: '1000.5000000000', unit: "
               "us}\n";
    out << "- {name: pcr16-initial-" << std::string(64, '0')
        << ", suite: 0_ksweep-extend, result: pass, measurement: null, unit: ''}\n"
        << "- {name: pcr16-final-" << final_pcr(key.extends)
        << ", suite: 0_ksweep-extend, result: pass, measurement: null, unit: ''}\n"
        << "- {name: tpm_extend, suite: 0_ksweep-extend, result: pass}\n"
        << "- {name: job, suite: lava, result: pass, metadata: {definition: lava, case: job}}\n";
    out.close();
    LavaResults results = LavaResults::load({dir.path().string()}, sample_expectation());
    BootRun b = results.boot(key);
    EXPECT_TRUE(b.ok) << b.message;
    ASSERT_EQ(b.samples.size(), 4u);
    EXPECT_EQ(b.samples[3].ns, 1000500);
}

std::string load_error(const fs::path& dir, const LavaExpectation& expected) {
    try {
        LavaResults::load({dir.string()}, expected);
    } catch (const LavaResultsError& e) {
        return e.what();
    }
    return "";
}

// A lab's results are outside input: a job directory or one of its files that is a link
// elsewhere (a secret, /dev/zero) is refused, not read.
TEST(LavaResults, LinksInTheResultsAreRefused) {
    TempDir elsewhere("ksweep-lava-elsewhere"), dir("ksweep-lava-links");
    const fs::path job = lava_run_dir(elsewhere.path(), sample_key(), "pass", 100);
    fs::create_directory_symlink(job, dir.path() / job.filename());
    std::string error = load_error(dir.path(), sample_expectation());
    EXPECT_NE(error.find("is a symbolic link"), std::string::npos) << error;

    const fs::path real = lava_run_dir(dir.path() / "real", sample_key(), "pass", 100);
    fs::remove(real / "output.yaml");
    fs::create_symlink("/dev/zero", real / "output.yaml");
    error = load_error(real, sample_expectation());
    EXPECT_NE(error.find("path output.yaml: 'output.yaml' is a symbolic link"), std::string::npos)
        << error;
}

TEST(LavaResults, ResultsOfAnotherSeriesAreRefusedNamingTheJob) {
    TempDir dir("ksweep-lava-other");
    LavaBootKey key = sample_key();
    key.series = "st33";
    key.series_sha256 = std::string(64, 'f');
    lava_run_dir(dir.path(), key, "pass", 100);
    std::string error = load_error(dir.path(), sample_expectation());
    EXPECT_NE(error.find("is of series 'st33'"), std::string::npos) << error;
    EXPECT_NE(error.find(key.job_name()), std::string::npos) << error;
}

TEST(LavaResults, AnotherKsweepVersionOrAnotherPatchFileIsRefused) {
    TempDir dir("ksweep-lava-version");
    LavaBootKey key = sample_key();
    key.version = "0.0.9";
    lava_run_dir(dir.path() / "v", key, "pass", 100);
    EXPECT_NE(load_error(dir.path() / "v", sample_expectation()).find("ksweep 0.0.9"),
              std::string::npos);
    key = sample_key();
    key.patch_sha256 = std::string(64, 'e');
    lava_run_dir(dir.path() / "p", key, "pass", 100);
    EXPECT_NE(load_error(dir.path() / "p", sample_expectation()).find("another patch 2"),
              std::string::npos);
}

TEST(LavaResults, AFailedOrTimedOutJobIsRefusedWithLavasReason) {
    TempDir dir("ksweep-lava-failed");
    lava_run_dir(dir.path(), sample_key(), "fail", 100);
    std::string error = load_error(dir.path(), sample_expectation());
    EXPECT_NE(error.find("failed in LAVA: Job: lava-test-shell timed out"), std::string::npos)
        << error;
}

TEST(LavaResults, AnUnfinishedJobOrAJobWithoutResultsIsRefused) {
    TempDir dir("ksweep-lava-unfinished");
    fs::path job = lava_run_dir(dir.path(), sample_key(), "pass", 100, false);
    EXPECT_NE(load_error(dir.path(), sample_expectation()).find("no results"), std::string::npos);
    std::ofstream(job / "result.yaml") << "definition: lava\ncase: job\n";
    EXPECT_NE(load_error(dir.path(), sample_expectation()).find("did not finish"),
              std::string::npos);
    fs::remove(job / "output.yaml");
    std::ofstream(job / "result.yaml") << "definition: lava\ncase: job\nresult: pass\n";
    EXPECT_NE(load_error(dir.path(), sample_expectation()).find("no output.yaml"),
              std::string::npos);
}

TEST(LavaResults, ADirectoryWithoutJobsIsRefused) {
    TempDir dir("ksweep-lava-empty");
    EXPECT_NE(load_error(dir.path(), sample_expectation()).find("no job directory"),
              std::string::npos);
}

TEST(LavaResults, AWrongPcrFailsTheBoot) {
    TempDir dir("ksweep-lava-pcr");
    LavaBootKey key = sample_key();
    fs::path job = lava_run_dir(dir.path(), key, "pass", 100);
    std::string log = *read_file(job / "output.yaml");
    std::string good = final_pcr(key.extends);
    log.replace(log.find(good), good.size(), std::string(64, '7'));
    std::ofstream(job / "output.yaml") << log;
    BootRun b = LavaResults::load({dir.path().string()}, sample_expectation()).boot(key);
    EXPECT_FALSE(b.ok);
    EXPECT_FALSE(b.pcr_passed);
}

TEST(LavaResults, AnExtendWithoutItsTimeFailsTheBoot) {
    TempDir dir("ksweep-lava-untimed");
    LavaBootKey key = sample_key();
    fs::path job = lava_run_dir(dir.path(), key, "pass", 100);
    std::string log = *read_file(job / "output.yaml");
    std::string timed = R"("measurement": 101.25, )";
    log.replace(log.find(timed), timed.size(), R"("measurement": "n/a", )");
    std::ofstream(job / "output.yaml") << log;
    BootRun b = LavaResults::load({dir.path().string()}, sample_expectation()).boot(key);
    EXPECT_FALSE(b.ok);
    EXPECT_NE(b.message.find("4 of 4 extends reported, 1 failed"), std::string::npos) << b.message;
}

// A device file's boot: its operation instead of the extends, no TPM.
LavaBootKey operation_key(const std::string& variant = "baseline") {
    LavaBootKey key = sample_key(variant);
    key.device = "ak8974";
    key.tpm.clear();
    key.pcr_bank.clear();
    key.operation = "read in_magn_x_raw";
    key.expect = "291";
    return key;
}

// The counters the guest reads at 0x7f, as the test definition reports them.
void add_counters(const fs::path& job, long write_idle) {
    std::ofstream log(job / "output.yaml", std::ios::app);
    for (const auto& [name, count] : {std::pair<std::string, long>{"messages", 24},
                                      {"violations", write_idle},
                                      {"poll_interval_violations", 0},
                                      {"write_idle_violations", write_idle}})
        log << R"({"dt": "x", "lvl": "results", "msg": {"case": "device-)" << name
            << R"(", "definition": "0_ksweep-extend", "result": "pass", "measurement": )" << count
            << "}}\n";
}

fs::path operation_run_dir(const fs::path& root, const LavaBootKey& key, const std::string& value) {
    fs::path dir = root / key.job_name();
    fs::create_directories(dir);
    LavaJob job;
    job.key = key;
    std::ofstream(dir / "job.yaml") << lava_job_yaml(job);
    std::ofstream(dir / "result.yaml") << "case: job\ndefinition: lava\nresult: pass\n";
    std::ofstream log(dir / "output.yaml");
    for (std::uint32_t i = 0; i < key.extends; ++i)
        log << R"({"dt": "x", "lvl": "results", "msg": {"case": "op-)" << i
            << R"(", "definition": "0_ksweep-extend", "result": "pass", "measurement": )"
            << 3000 + i << R"(.5, "units": "us"}})"
            << "\n"
            << R"({"dt": "x", "lvl": "results", "msg": {"case": "value-)" << i << "-" << value
            << R"(", "definition": "0_ksweep-extend", "result": "pass"}})"
            << "\n";
    log << R"({"dt": "x", "lvl": "results", "msg": {"case": "ksweep_op", "definition": "0_ksweep-extend", "result": "pass"}})"
        << "\n";
    return dir;
}

TEST(LavaExport, ADeviceFileJobRunsItsOperationAndReportsTheCounters) {
    TempDir dir("ksweep-lava-op");
    guest::GuestRunOptions run = sample_run(dir.path());
    run.device.driver = "ak8974";
    LavaExport lava((dir.path() / "lava").string(), "");
    lava.add_boot(operation_key(), run);
    lava.write_manifest();
    fs::path file = dir.path() / "lava/jobs" / (operation_key().job_name() + ".yaml");
    std::string text = *read_file(file);
    EXPECT_NE(text.find("ksweep-operation > /tmp/ksweep-op.log"), std::string::npos) << text;
    EXPECT_NE(text.find("lava-test-case op-$i"), std::string::npos);
    EXPECT_NE(text.find("ksweep_op stats 0x7f"), std::string::npos) << "the counters, in-band";
    EXPECT_EQ(text.find("tpm_extend"), std::string::npos) << "no TPM on this device";
    EXPECT_NE(text.find("ksweep.operation: \"read in_magn_x_raw\""), std::string::npos);
    if (have_lava_common()) {
        EXPECT_EQ(schema_errors(file), "") << file;
    }
    // The TPM jobs read the counters too.
    lava.add_boot(sample_key(), sample_run(dir.path()));
    std::string tpm = *read_file(dir.path() / "lava/jobs" / (sample_key().job_name() + ".yaml"));
    EXPECT_NE(tpm.find("ksweep_op stats 0x7f"), std::string::npos);
    // The metadata reads back into the key, operation and all.
    LavaBootKey back = LavaBootKey::from_metadata(operation_key().metadata());
    EXPECT_EQ(back.operation, "read in_magn_x_raw");
    EXPECT_EQ(back.job_name(), operation_key().job_name());
}

// Each value against the device file's, and the violations the device counted come back with
// the results: no "violations: none" for what nobody counted.
TEST(LavaResults, AnOperationJobIsCheckedByItsValuesAndBringsItsViolations) {
    TempDir dir("ksweep-lava-op-results");
    fs::path good = operation_run_dir(dir.path(), operation_key("baseline"), "291");
    add_counters(good, 0);
    fs::path broken = operation_run_dir(dir.path(), operation_key("patched"), "291");
    add_counters(broken, 3);
    LavaResults results = LavaResults::load({dir.path().string()}, sample_expectation());
    bool counted = false;
    BootRun b = results.boot(operation_key("baseline"), &counted);
    EXPECT_TRUE(b.ok) << b.message;
    EXPECT_TRUE(b.pcr_passed);
    EXPECT_TRUE(counted);
    EXPECT_TRUE(b.violations.empty());
    ASSERT_EQ(b.samples.size(), 4u);
    EXPECT_EQ(b.samples[1].ns, 3001500);
    EXPECT_NE(b.message.find("values checked: 4/4 read in_magn_x_raw returned 291"),
              std::string::npos)
        << b.message;
    BootRun p = results.boot(operation_key("patched"), &counted);
    EXPECT_EQ(p.violations, (std::map<std::string, unsigned long long>{{"min_write_idle", 3}}));
}

// The lab's device dictionary starts ksweep-tpmd for whatever device a job names: every entry
// of the registry, TPMs and device files, has its user command there.
TEST(LavaExport, TheDeviceDictionaryHasACommandForEveryDevice) {
    std::string dictionary = *read_file(KSWEEP_SOURCE_DIR "/lava/qemu-ksweep.jinja2");
    auto registry = device::load_device_registry(KSWEEP_SOURCE_DIR "/qemu/devices.yaml");
    for (const auto& entry : registry.entries())
        EXPECT_NE(dictionary.find("'" + lava_tpmd_command(entry.driver) +
                                  "': {\n        'do': "
                                  "ksweep_home + '/lava/ksweep-tpmd-lab.sh start " +
                                  entry.driver + "',"),
                  std::string::npos)
            << entry.driver << " has no user command in lava/qemu-ksweep.jinja2";
}

TEST(LavaResults, AWrongValueOrMissingCountersAreSaid) {
    TempDir dir("ksweep-lava-op-wrong");
    operation_run_dir(dir.path(), operation_key(), "0"); // no device-* cases
    bool counted = true;
    BootRun b = LavaResults::load({dir.path().string()}, sample_expectation())
                    .boot(operation_key(), &counted);
    EXPECT_FALSE(b.ok);
    EXPECT_FALSE(b.pcr_passed);
    EXPECT_FALSE(counted);
    EXPECT_NE(b.message.find("values checked: 0/4"), std::string::npos) << b.message;
    EXPECT_NE(b.message.find("the device's counters were not reported"), std::string::npos)
        << b.message;
    // An RTC's time comes back with '.' for ':' (LAVA's case names allow no ':').
    EXPECT_EQ(lava_case_value("2026-12-02T06:53:00"), "2026-12-02T06.53.00");
}

} // namespace
} // namespace ksweep::validate
