// `ksweep validate --lava-results DIR...`: the L4 boots read back from LAVA instead of run here.
// Each job directory holds the job definition ksweep wrote (job.yaml: its metadata say which
// series, patch, variant, boot, HZ, device and ksweep version) and its results, in either form:
//   - lava-run's: result.yaml (the job's own result) and output.yaml (lava-run's log: one
//     {dt, lvl, msg} line per record, results at lvl "results");
//   - a lava-server's export (lavacli results ID --yaml, or /api/v0.2/jobs/ID/tests/): a list
//     of {suite, name, result, measurement, unit, metadata}, the job's own result as suite
//     "lava" case "job".
// A directory that holds job directories is searched one level down.
#pragma once

#include "validate/lava_job.h"
#include "validate/validate_report.h"

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::validate {

struct LavaResultsError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What one job reported.
struct LavaJobResult {
    std::string dir;
    LavaBootKey key;
    std::string job_result; // the "lava"/"job" case: pass, fail
    std::string job_error;  // its error_type and error_msg when it failed
    // extend-<i> -> {result, measurement in us}
    std::map<std::uint32_t, std::pair<std::string, double>> extends;
    std::string pcr_initial, pcr_final; // hex, from pcr16-initial-<hex> / pcr16-final-<hex>
    std::string tpm_extend_result;      // the tpm_extend case: its exit status
    // A device file's job: op-<i> go into `extends`, value-<i>-<value> here, ksweep_op's status.
    std::map<std::uint32_t, std::string> values;
    std::string operation_result;
    // The back end's counters the guest read in-band (device-<counter>); empty when the job
    // did not report them (a job of an older ksweep, or a guest that could not read them).
    std::map<std::string, long> counters;
};

// Reads one job directory. Throws LavaResultsError naming the directory and what is missing.
LavaJobResult read_lava_job(const std::string& dir);

// What the series being validated expects of every job.
struct LavaExpectation {
    std::string version;
    std::string series_sha256;
    std::map<int, std::string> patch_sha256; // patch number -> sha256 of its file
};

class LavaResults {
  public:
    // Reads every job under `paths` and refuses, naming the job, results of another series, of
    // another ksweep version, of a patch whose file differs, jobs that failed or did not finish
    // (no job result, a fail, a timeout) and duplicates. Throws LavaResultsError.
    static LavaResults load(const std::vector<std::string>& paths, const LavaExpectation& expected);

    // The boot `key` names (patch, device, variant, boot, HZ, extends), as a local boot would
    // have filled it: samples, the PCR check in the key's bank (a device file: every value
    // against key.expect), the requirement violations the device counted. A boot no job
    // reported is a failed BootRun that says which job is missing; one without the device's
    // counters says so in its message and `counters_reported` is false.
    BootRun boot(const LavaBootKey& key, bool* counters_reported = nullptr) const;

    size_t size() const { return jobs_.size(); }

  private:
    std::vector<LavaJobResult> jobs_;
};

} // namespace ksweep::validate
