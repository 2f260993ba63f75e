// Measured figures for commit messages and the cover letter: the part of a validation report
// `ksweep series --report FILE` reads. The format is docs/report-json.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ksweep::series {

struct PatchMeasurement {
    std::vector<std::string> files; // tree-relative files the measurement covers
    std::string metric;             // "1000 TPM2_PCR_Extend commands"
    double before = 0, after = 0;   // baseline and patched figures
    std::string unit = "ms";
    int runs = 0;                   // repetitions behind each figure (0: not stated)
};

struct ValidationReport {
    std::string environment; // "QEMU 7.2 (TCG), Debian 6.1.0-57-amd64, HZ=250"
    std::string summary;     // a paragraph for the cover letter
    std::vector<PatchMeasurement> patches;

    // The measurement that covers any of these files, if the report has one.
    const PatchMeasurement* for_files(const std::vector<std::string>& files) const;
};

// Reads the report; throws std::runtime_error naming the file and what is wrong.
ValidationReport load_report(const std::string& path);
ValidationReport parse_report(const std::string& json_text, const std::string& path_for_messages);

// "1000 TPM2_PCR_Extend commands took 289.3 s before and 32.4 s after this change (QEMU ...,
// 5 runs each)." — one sentence for a commit message.
std::string describe(const PatchMeasurement& m, const std::string& environment);

} // namespace ksweep::series
