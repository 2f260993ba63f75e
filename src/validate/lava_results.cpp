#include "validate/lava_results.h"

#include "core/tree_path.h"
#include "guest/pcr_check.h"
#include "validate/levels_device.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

namespace ksweep::validate {

namespace {

[[noreturn]] void fail(const std::string& dir, const std::string& what) {
    throw LavaResultsError("LAVA results " + dir + ": " + what);
}

// Results are outside input (a lab's files): a file of a job directory is no symbolic link
// (core/tree_path.h) and, when it exists, a regular file no larger than this.
constexpr std::uintmax_t kMaxResultFileBytes = std::uintmax_t{64} << 20;

fs::path job_file(const fs::path& dir, const std::string& name, const std::string& dir_text) {
    fs::path file;
    try {
        file = path_in_tree(dir, name);
    } catch (const TreePathError& e) {
        fail(dir_text, e.what());
    }
    std::error_code ec;
    if (fs::exists(file, ec) &&
        (!fs::is_regular_file(file, ec) || fs::file_size(file, ec) > kMaxResultFileBytes))
        fail(dir_text, name + " is not a regular file of at most " +
                           std::to_string(kMaxResultFileBytes >> 20) + " MiB");
    return file;
}

YAML::Node load_yaml(const fs::path& path, const std::string& dir) {
    try {
        return YAML::LoadFile(path.string());
    } catch (const YAML::Exception& e) {
        fail(dir, path.filename().string() + " is not YAML: " + e.what());
    }
}

std::string text(const YAML::Node& node) {
    return node && node.IsScalar() ? node.as<std::string>() : "";
}

// One test case, from either form, into `result`.
void take_case(LavaJobResult& result, const std::string& suite, const std::string& name,
               const std::string& outcome, const YAML::Node& measurement,
               const YAML::Node& details) {
    if (suite == "lava") {
        if (name == "job") {
            result.job_result = outcome;
            result.job_error =
                text(details["error_type"]) +
                (text(details["error_msg"]).empty() ? "" : ": " + text(details["error_msg"]));
        }
        return;
    }
    static const std::string kExtend = "extend-", kOperation = "op-", kValue = "value-",
                             kInitial = "pcr16-initial-", kFinal = "pcr16-final-",
                             kCounter = "device-";
    auto index_of = [&](const std::string& digits) {
        if (digits.empty() || digits.size() > 9 ||
            digits.find_first_not_of("0123456789") != std::string::npos)
            fail(result.dir, "test case " + name + " has no number where one belongs");
        return static_cast<std::uint32_t>(std::stoul(digits));
    };
    if (name.rfind(kValue, 0) == 0) {
        std::string rest = name.substr(kValue.size());
        size_t dash = rest.find('-');
        result.values[index_of(rest.substr(0, dash))] =
            dash == std::string::npos ? "" : rest.substr(dash + 1);
        return;
    }
    if (name.rfind(kCounter, 0) == 0) {
        std::string value = text(measurement);
        char* end = nullptr;
        double n = std::strtod(value.c_str(), &end);
        if (value.empty() || !end || *end || n < 0 || n > 1e15)
            fail(result.dir, "test case " + name + " has no count (measurement '" + value + "')");
        result.counters[name.substr(kCounter.size())] = std::lround(n);
        return;
    }
    if (name == "ksweep_op") {
        result.operation_result = outcome;
        return;
    }
    const std::string& prefix = name.rfind(kOperation, 0) == 0 ? kOperation : kExtend;
    if (name.rfind(prefix, 0) == 0) {
        std::string index = name.substr(prefix.size());
        if (index.empty() || index.size() > 9 ||
            index.find_first_not_of("0123456789") != std::string::npos)
            fail(result.dir, "test case " + name + " is not " + prefix + "<number>");
        std::string value = text(measurement);
        char* end = nullptr;
        double us = std::strtod(value.c_str(), &end);
        // An extend without its time says nothing about the driver: it counts as failed.
        bool timed = !value.empty() && end && *end == '\0' && us >= 0;
        result.extends[static_cast<std::uint32_t>(std::stoul(index))] = {
            timed ? outcome : "fail (no measurement: '" + value + "')", timed ? us : 0};
    } else if (name.rfind(kInitial, 0) == 0) {
        result.pcr_initial = name.substr(kInitial.size());
    } else if (name.rfind(kFinal, 0) == 0) {
        result.pcr_final = name.substr(kFinal.size());
    } else if (name == "tpm_extend") {
        result.tpm_extend_result = outcome;
    }
}

// lava-run: result.yaml holds the job's result, output.yaml the log lines.
void read_lava_run(LavaJobResult& result, const fs::path& dir) {
    YAML::Node job = load_yaml(job_file(dir, "result.yaml", result.dir), result.dir);
    take_case(result, "lava", "job", text(job["result"]), {}, job);
    std::ifstream log(job_file(dir, "output.yaml", result.dir));
    if (!log)
        fail(result.dir, "no output.yaml (lava-run's log, its stderr)");
    for (std::string line; std::getline(log, line);) {
        if (line.rfind("- ", 0) == 0) // a server's output.yaml is a YAML list
            line.erase(0, 2);
        if (line.find("\"results\"") == std::string::npos)
            continue;
        YAML::Node record;
        try {
            record = YAML::Load(line);
        } catch (const YAML::Exception&) {
            continue; // a console line cut short by the guest; never a result record
        }
        if (text(record["lvl"]) != "results" || !record["msg"].IsMap())
            continue;
        const YAML::Node& msg = record["msg"];
        if (text(msg["definition"]) != "lava" || text(msg["case"]) == "job")
            take_case(result, text(msg["definition"]), text(msg["case"]), text(msg["result"]),
                      msg["measurement"], msg);
    }
}

// A lava-server's export: a list of test cases.
void read_server_results(LavaJobResult& result, const fs::path& file) {
    YAML::Node cases = load_yaml(file, result.dir);
    if (!cases.IsSequence())
        fail(result.dir, file.filename().string() + " is not a list of test cases");
    for (const auto& c : cases) {
        std::string suite = text(c["suite"]);
        if (suite.empty())
            suite = text(c["metadata"]["definition"]);
        take_case(result, suite, text(c["name"]), text(c["result"]), c["measurement"],
                  c["metadata"]);
    }
}

std::map<std::string, std::string> job_metadata(const fs::path& file, const std::string& dir) {
    if (!fs::exists(file))
        fail(dir, "no job.yaml (the job definition ksweep wrote, or `lavacli jobs definition`)");
    YAML::Node job = load_yaml(file, dir);
    std::map<std::string, std::string> metadata;
    if (job["metadata"] && job["metadata"].IsMap())
        for (const auto& entry : job["metadata"])
            metadata[entry.first.as<std::string>()] = text(entry.second);
    return metadata;
}

bool is_job_dir(const fs::path& dir) {
    return fs::exists(dir / "job.yaml");
}

} // namespace

LavaJobResult read_lava_job(const std::string& dir_text) {
    fs::path dir = dir_text;
    LavaJobResult result;
    result.dir = dir_text;
    try {
        result.key =
            LavaBootKey::from_metadata(job_metadata(job_file(dir, "job.yaml", dir_text), dir_text));
    } catch (const LavaResultsError&) {
        throw;
    } catch (const std::exception& e) {
        fail(dir_text, std::string("job.yaml: ") + e.what() + " (not a job ksweep wrote?)");
    }
    if (fs::exists(dir / "results.yaml"))
        read_server_results(result, job_file(dir, "results.yaml", dir_text));
    else if (fs::exists(dir / "result.yaml"))
        read_lava_run(result, dir);
    else
        fail(dir_text, "no results: neither results.yaml (lava-server) nor result.yaml "
                       "(lava-run)");
    return result;
}

LavaResults LavaResults::load(const std::vector<std::string>& paths,
                              const LavaExpectation& expected) {
    std::vector<std::string> dirs;
    for (const auto& path : paths) {
        if (!fs::is_directory(path))
            throw LavaResultsError("LAVA results " + path + ": no such directory");
        if (is_job_dir(path)) {
            dirs.push_back(path);
            continue;
        }
        std::vector<std::string> found;
        for (const auto& entry : fs::directory_iterator(path)) {
            if (!entry.is_directory() || !is_job_dir(entry.path()))
                continue;
            try { // a job directory is in the results directory, not behind a link
                found.push_back(path_in_tree(path, entry.path().filename().string()).string());
            } catch (const TreePathError& e) {
                fail(path, e.what());
            }
        }
        if (found.empty())
            throw LavaResultsError("LAVA results " + path +
                                   ": no job directory (one with job.yaml) in it");
        std::sort(found.begin(), found.end());
        dirs.insert(dirs.end(), found.begin(), found.end());
    }

    LavaResults results;
    std::set<std::string> names;
    for (const auto& dir : dirs) {
        LavaJobResult job = read_lava_job(dir);
        const LavaBootKey& key = job.key;
        std::string name = key.job_name();
        if (key.series_sha256 != expected.series_sha256)
            fail(dir, "job " + name + " is of series '" + key.series + "' (" +
                          key.series_sha256.substr(0, 12) + "), not of the series validated (" +
                          expected.series_sha256.substr(0, 12) + ")");
        if (key.version != expected.version)
            fail(dir, "job " + name + " was written by ksweep " + key.version + ", this is " +
                          expected.version + ": generate the jobs again");
        auto patch = expected.patch_sha256.find(key.patch);
        if (patch == expected.patch_sha256.end() || patch->second != key.patch_sha256)
            fail(dir, "job " + name + " is of another patch " + std::to_string(key.patch) +
                          " than the series holds (its file differs)");
        if (job.job_result.empty())
            fail(dir, "job " + name + " did not finish (no job result)");
        if (job.job_result != "pass")
            fail(dir, "job " + name + " failed in LAVA: " +
                          (job.job_error.empty() ? job.job_result : job.job_error));
        if (!names.insert(name).second)
            fail(dir, "job " + name + " is there twice");
        results.jobs_.push_back(std::move(job));
    }
    return results;
}

BootRun LavaResults::boot(const LavaBootKey& key, bool* counters_reported) const {
    if (counters_reported)
        *counters_reported = false;
    BootRun b;
    b.variant = key.variant;
    b.boot = key.boot;
    const LavaJobResult* job = nullptr;
    for (const auto& j : jobs_)
        if (j.key.job_name() == key.job_name() && j.key.extends == key.extends)
            job = &j;
    if (!job) {
        b.message = "no LAVA result for job " + key.job_name() + " (" +
                    std::to_string(key.extends) + " extends)";
        return b;
    }
    b.run_dir = job->dir;
    for (const auto& [index, outcome] : job->extends) {
        guest::ExtendSample s;
        s.index = index;
        s.ns = static_cast<std::int64_t>(std::llround(outcome.second * 1000));
        s.rc = outcome.first == "pass" ? 0 : 0x80000000u;
        b.samples.push_back(s);
    }
    std::uint32_t failed = 0;
    for (const auto& s : b.samples)
        failed += s.rc != 0;
    // The device's counters, read in the guest: the requirement violations of this boot.
    guest::DeviceCounters counters;
    for (const auto& [name, count] : job->counters)
        counters.counters[name] = count;
    b.violations = requirement_violations(counters);
    if (counters_reported)
        *counters_reported = !job->counters.empty();
    const std::string no_counters =
        job->counters.empty() ? " (the device's counters were not reported: no device-* test "
                                "cases; its requirements are unchecked)"
                              : "";
    if (!key.operation.empty()) {
        std::string expected = lava_case_value(key.expect);
        size_t matched = 0;
        for (const auto& [index, value] : job->values)
            matched += value == expected;
        if (b.samples.size() != key.extends || failed) {
            b.message = job->dir + ": " + std::to_string(b.samples.size()) + " of " +
                        std::to_string(key.extends) + " operations reported, " +
                        std::to_string(failed) + " failed";
        } else {
            b.pcr_passed = job->values.size() == key.extends && matched == key.extends;
            b.ok = b.pcr_passed && job->operation_result == "pass";
            b.message = job->dir + ": values checked: " + std::to_string(matched) + "/" +
                        std::to_string(key.extends) + " " + key.operation + " returned " +
                        key.expect;
        }
        b.message += no_counters;
        return b;
    }
    auto initial = bytes_from_hex(job->pcr_initial), final_value = bytes_from_hex(job->pcr_final);
    if (b.samples.size() != key.extends || failed) {
        b.message = job->dir + ": " + std::to_string(b.samples.size()) + " of " +
                    std::to_string(key.extends) + " extends reported, " + std::to_string(failed) +
                    " failed";
    } else if (!initial || !final_value || initial->empty() || final_value->empty()) {
        b.message = job->dir + ": no PCR 16 values (pcr16-initial-/pcr16-final- test cases)";
    } else {
        guest::PcrCheck pcr = guest::check_pcr(key.pcr_bank, *initial, *final_value, key.extends);
        b.pcr_passed = pcr.passed;
        b.ok = pcr.passed && job->tpm_extend_result == "pass";
        b.message = job->dir + ": " + pcr.message;
    }
    b.message += no_counters;
    return b;
}

} // namespace ksweep::validate
