// Subject prefixes as each subsystem writes them ("Input: xpad -", "hwmon: (lm90)",
// "drm/amdgpu:"), read from rules/subject_prefixes.yaml. Used only when a tree has no history
// to take the prefix from (docs/series.md: history, then this table, then the path heuristic).
//
// An entry is a path prefix (tree-relative; the longest that the file starts with wins), an
// optional module it is limited to (a module entry beats a plain one of the same path), the
// subject templates (the first whose placeholders are all non-empty is used) and prefixes to
// strip from the driver's name. Placeholders:
//   {driver}  the module (else the file's name without extension), or the name of the
//             file's own directory below the entry's path when the module name is made of it
//             (tpm_st33zp24 in st33zp24/, ath9k_htc in ath9k/) and it is not the {dir} the
//             template names already; then `strip` applied
//   {dir}     the first path component after the entry's path ("adc" in drivers/iio/adc/,
//             "pxa" for arch/arm/mach- and arch/arm/mach-pxa/), empty for a file right in it
//   {file}    the file's name without extension, `strip` applied
// A template ends in ':', '-' or ')': the separator the summary follows ("Input: xpad - Use",
// "hwmon: (lm90) Use", "ASoC: codecs: wm8904: Use").
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::series {

struct SubjectConvention {
    std::string path;                   // "drivers/hwmon/"
    std::string module;                 // "" for every module under path
    std::vector<std::string> templates; // {"hwmon: ({driver})"}
    std::vector<std::string> strip;     // {"i2c-"}: the first that prefixes the name goes
    bool lower_verb = false;            // verb: lower - "Input: xpad - use ...", not "Use"
    int line = 0;                       // where the entry is in its file (1-based)
};

// A filled-in template and the entry it came from.
struct TableMatch {
    std::string prefix;
    const SubjectConvention* entry = nullptr;
};

struct SubjectTable {
    std::vector<SubjectConvention> entries;
    std::string source_path;

    // The prefix for a tree-relative file of `module` ("" when it is none), with its
    // separator ("Input: xpad -", "hwmon: (lm90)", "ASoC: codecs: wm8904:"); nullopt when no
    // entry covers the file.
    std::optional<std::string> prefix_for(const std::string& file, const std::string& module) const;
    // The same with the entry that gave it (its line and verb case).
    std::optional<TableMatch> match_for(const std::string& file, const std::string& module) const;
};

// A table that cannot be used: what() is "file:line:col: message".
struct SubjectTableError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

SubjectTable parse_subject_table(const std::string& yaml_text,
                                 const std::string& path_for_messages);
SubjectTable load_subject_table(const std::string& path);

// rules/subject_prefixes.yaml of the source tree (compiled in; KSWEEP_DATA_DIR overrides).
std::string default_subject_table_path();

// The table at default_subject_table_path(), loaded on first use.
const SubjectTable& shipped_subject_table();

} // namespace ksweep::series
