// One LAVA v2 job per L4 boot (patch x variant x HZ x device x boot): what identifies it (the
// metadata the results reader checks) and its YAML. The test definition is the same for the
// emulated TPM (device type qemu) and a board with the real chip: it runs tpm_extend, the
// benchmark of local L4, and reports every extend and both PCR 16 values as lava-test-cases.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ksweep::validate {

// What one job measures; every field is in the job's metadata as "ksweep.<name>".
struct LavaBootKey {
    std::string version;       // ksweep's, KSWEEP_VERSION
    std::string series;        // the series directory's name, for people
    std::string series_sha256; // of the series' patch files (lava_series_sha256)
    int patch = 0;             // 1-based number in the series
    std::string patch_sha256;  // of the patch file
    std::string device;        // the device registry entry
    std::string variant;       // "baseline" or "patched"
    int boot = 0;              // 1-based within the variant
    int hz = 0;                // CONFIG_HZ of the guest kernel
    std::uint32_t extends = 0; // per boot
    std::string tpm = "2.0";   // tpm_extend --tpm
    std::string pcr_bank;      // the chain PCR 16 is checked against
    // A device file's operation ("read in_magn_x_raw") instead of the extends: tpm and pcr_bank
    // are empty, and the guest runs the operation init.sh wrote (/bin/ksweep-operation).
    std::string operation;
    std::string expect; // what every operation must read: the device file's, never the job's

    // "ksweep-<series>-p2-tpm_i2c_nuvoton-hz250-baseline-b1": the job name and its file name.
    std::string job_name() const;
    std::map<std::string, std::string> metadata() const;
    // The reverse; throws std::runtime_error naming the first missing or malformed field.
    static LavaBootKey from_metadata(const std::map<std::string, std::string>& metadata);
};

// sha256 over the names and contents of the series' *.patch files in name order: the one
// identity of a series that survives copying it to another machine.
std::string lava_series_sha256(const std::string& series_dir);

struct LavaImage {
    std::string url;
    std::string sha256;
};

struct LavaJob {
    LavaBootKey key;
    std::string device_type = "qemu"; // or a lab's board type (docs: README "In a lab")
    LavaImage kernel, ramdisk;        // the ramdisk is a gzip'd cpio newc
    std::string kernel_args;          // for init.sh (guest_kernel_args) plus ksweep.lava=1
    int memory_mb = 512;
    // qemu only: the extra QEMU arguments that attach the emulated TPM, and the device
    // dictionary's user command that starts ksweep-tpmd before the boot.
    std::vector<std::string> extra_options;
    std::string tpmd_command;
    int timeout_minutes = 30;
};

// The name of the device dictionary's user command that starts ksweep-tpmd for `device`
// (lava/qemu-ksweep.jinja2 defines it).
std::string lava_tpmd_command(const std::string& device);

std::string lava_job_yaml(const LavaJob& job);

// The steps of the inline test definition: run tpm_extend and turn its lines into
// lava-test-case calls: extend-<i> (measurement in us, fail for a non-zero TPM response
// code), pcr16-initial-<hex>, pcr16-final-<hex>, and tpm_extend's exit status; for a device
// file, its operation: op-<i> (us), value-<i>-<what it read, ':' as '.'>, ksweep_op's status.
// Then the back end's counters, read in-band at 0x7f (stats_device.h): device-<counter> with
// the count as measurement, so requirement violations come back with the results.
std::vector<std::string> lava_test_steps(const LavaBootKey& key);

// A value read as it appears in a value-<i>-<value> test case name (LAVA allows no ':').
std::string lava_case_value(const std::string& value);

} // namespace ksweep::validate
