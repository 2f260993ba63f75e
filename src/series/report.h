// Measured figures for commit messages and the cover letter, read from the report.json that
// `ksweep validate` writes (docs/report-json.md is that contract; only the fields used here
// are read, everything else is ignored).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ksweep::series {

// One patch of the validated series.
struct PatchMeasurement {
    std::vector<std::string> files; // tree-relative files the patch changes
    std::string subject;
    bool passed = false;
    std::vector<std::pair<std::string, std::string>> levels; // {"L1", "passed"}, ...

    // L4: the first device model that ran for the patch (measured false when none did).
    bool measured = false;
    std::string driver;
    int extends = 0;                         // benchmark commands per boot
    std::string command = "TPM2_PCR_Extend"; // what one extend is (reports before it was named)
    int baseline_boots = 0, patched_boots = 0;
    double baseline_median_us = 0, patched_median_us = 0;
};

// The figures series takes from a validate report (validate::ValidationFigures is the report
// itself; this is the part of its JSON form commit messages quote).
struct ValidationFigures {
    std::string kernel_release; // the guest kernel
    int config_hz = 0;
    std::string started_at; // UTC, ISO 8601: which run of ksweep validate
    std::string source;     // the report file read ("" when parsed from text)
    bool passed = false;
    std::vector<PatchMeasurement> patches;

    // The entry for a patch that changes any of these files, if the report has one.
    const PatchMeasurement* for_files(const std::vector<std::string>& files) const;
};

// Reads the report; throws std::runtime_error naming the file, the place in it (patches[1]) and
// what is wrong.
ValidationFigures load_report(const std::string& path);
ValidationFigures parse_report(const std::string& json_text, const std::string& path_for_messages);

// Where measured figures come from, for a label: "ksweep validate (report report.json of
// 2026-12-01T04:00:00Z)"; the file's name only, never the local path.
std::string report_label(const ValidationFigures& report);

// The commit message sentence for a measured patch ("" when nothing was measured), labelled
// with report_label().
std::string describe(const PatchMeasurement& m, const ValidationFigures& report);

// One line per level for the cover letter: "tpm: tpm_nsc: L1 passed, L2 passed, ...".
std::string level_summary(const PatchMeasurement& m);

} // namespace ksweep::series
