// The index of a sweep: every series written into the output directory, what each holds,
// what earlier runs finished, and what was left alone and why. index.json is for scripts and
// for the next run (which keeps each series' name and change-id, and with -v N says what
// changed); index.md is the same for people.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::series {

struct IndexPatch {
    std::string key;     // the group key: "module drivers/iio/adc/ad7606"
    std::string subject; // without [PATCH ...]
    std::vector<std::string> files;
    size_t sites = 0;          // call sites rewritten
    std::string prefix_source; // "table rules/subject_prefixes.yaml:29", "history: 30 commits"
    std::string digest;        // sha256 of the files' text before and after: "changed?" on -v
    std::vector<std::string> to, cc; // the patch's own recipients
};

// What `ksweep validate --series OUT` found for one series of the sweep: its report and, per
// level, how many of its patches passed, failed or had nothing to prove there.
struct LevelCounts {
    size_t passed = 0, failed = 0, other = 0; // other: not applicable, not built, not run
};

struct SeriesValidation {
    std::string report; // the report's directory, as validate wrote it
    bool passed = false;
    size_t patches = 0;
    std::array<LevelCounts, 4> levels; // L1..L4
    std::string error;                 // why the series could not be validated ("" if it was)

    size_t proven() const { return levels[3].passed; } // patches whose L4 passed
};

struct IndexSeries {
    std::string name;      // "iio", "iio-2": the directory under the output, kept across runs
    std::string change_id; // b4-style "20261202-iio-0123456789ab", kept across runs
    std::string tree;      // T: line, "" when the entry names none
    std::string tree_key;  // maintainer_tree.h's key
    std::string entry;     // MAINTAINERS section that decided the tree
    int version = 1;
    std::string branch;
    std::string base;
    std::vector<std::string> to, cc; // the cover letter's (or the single patch's) recipients
    std::vector<IndexPatch> patches;
    std::optional<SeriesValidation> validation; // set by `validate --series` on the sweep
    size_t sites() const;
};

// A series of an earlier run with nothing left to send.
struct FinishedSeries {
    std::string name, change_id, tree;
    std::string why;
};

// A call site, or a file, that no series carries.
struct LeftAlone {
    std::string where; // "drivers/x/y.c:42" or a file
    std::string why;
};

struct SweepIndex {
    std::string rule;
    std::string tree; // the kernel tree swept
    std::string base; // the commit every series starts from
    std::vector<IndexSeries> series;
    std::vector<FinishedSeries> finished;
    std::vector<LeftAlone> left_alone;
};

std::string render_index_json(const SweepIndex& index);
std::string render_index_markdown(const SweepIndex& index);

// Reads index.json (strictly, core/json_fields.h); throws std::runtime_error naming the file
// and the place in it of what is wrong ("index.json: series[0]: 'version' must be an integer").
SweepIndex load_index(const std::string& path);

} // namespace ksweep::series
