// The subject prefix a subsystem uses ("tpm: tpm_i2c_nuvoton:", "ACPI: OSL:").
//
// From history when the repository has some: a capped, path-limited walk back from the base
// collects the subjects of recent commits touching the files, and the modal prefix wins, one
// level at a time (the first tag by count, then a second tag when most of those subjects
// carry the same one, and so on). libgit2 path-limited walks cannot use commit-graph bloom
// filters, so the walk stops after a fixed number of commits.
// Otherwise from the table of subsystem conventions (rules/subject_prefixes.yaml,
// series/subject_table.h: "Input: xpad -", "hwmon: (lm90)"), and for paths it does not cover
// from MAINTAINERS and the path: the tag is the last directory of the matching section's F:
// pattern ("drivers/char/tpm/" -> "tpm"), then the driver when it is not the subsystem itself
// ("tpm_nsc", or the subdirectory "st33zp24").
//
// A prefix either ends in a tag ("tpm: tpm_nsc", "ASoC: codecs: wm8904"; the subject adds
// ": ") or in its own separator ("Input: xpad -", "hwmon: (lm90)"; the subject adds " ").
#pragma once

#include "git/git_handle.h"
#include "series/maintainers.h"
#include "series/subject_table.h"

#include <optional>
#include <string>
#include <vector>

namespace ksweep::series {

struct HistoryLimits {
    size_t max_commits = 5000; // commits looked at
    size_t max_subjects = 30;  // matching subjects kept
};

// "tpm: tpm_nsc" (no trailing colon) from subjects such as "tpm: tpm_nsc: Fix x".
std::optional<std::string> modal_prefix(const std::vector<std::string>& subjects);

// The tags of one subject ("ACPI: OSL: Use x" -> {"ACPI", "OSL"}); empty when it has none.
// A last tag may carry its own separator: "Input: xpad - fix" -> {"Input", "xpad -"},
// "hwmon: (lm90) Add" -> {"hwmon", "(lm90)"}.
std::vector<std::string> subject_tags(const std::string& subject);

// Subjects of recent non-merge commits that changed any of `paths` (repository-relative).
std::vector<std::string> history_subjects(git_repository* repo, const git_oid& from,
                                          const std::vector<std::string>& paths,
                                          const HistoryLimits& limits = {});

// History decides only when at least this many of the commits touching the files carry the
// prefix it would choose. Three commits writing the same prefix are a convention; one or two
// can be the user's own local work, a fixture's "Import" or a one-off (a treewide sweep): the
// table knows better than those. More than three would leave most small drivers, with a few
// commits in a shallow clone's reach, to the table although their history is plain.
constexpr size_t kMinAgreeingSubjects = 3;

// The prefix chosen for a patch, the case of the summary's first word, and where both came
// from, said so that "prefix 'tpm: ' from <source>" reads as a sentence: "history (7 of 10
// commits touching drivers/char/tpm/tpm_nsc.c)", "table rules/subject_prefixes.yaml:29
// (history: 1 of 1 commit touching ... agrees, fewer than 3)", "MAINTAINERS and path (no
// history: a scratch repository)".
struct PrefixChoice {
    std::string prefix;
    bool lower_verb = false; // "Input: xpad - use ...", not "Use ..."
    std::string source;
    size_t agreeing = 0;   // history's subjects that carry the modal prefix
    size_t considered = 0; // history's subjects looked at
};

// `history` is nullptr for a repository without it (a scratch one); else the subjects of
// history_subjects() for the patch's files, which `touching` names for the source ("these
// files" when empty).
PrefixChoice choose_prefix(const std::vector<std::string>* history, const Maintainers& maintainers,
                           const std::string& file, const std::string& module,
                           const SubjectTable& table, const std::string& touching = "");

// How many of `subjects` start with all of `prefix`'s tags ("tpm: tpm_nsc" agrees with
// "tpm: tpm_nsc: Fix x", not with "tpm: Fix y").
size_t subjects_agreeing(const std::vector<std::string>& subjects, const std::string& prefix);

// "drivers/char/tpm/tpm_nsc.c", or "2 files in drivers/char/tpm/" for several.
std::string describe_paths(const std::vector<std::string>& paths);

// The prefix as a subject starts with it: "tpm: " for "tpm", "Input: xpad - " for "Input: xpad -".
std::string prefix_as_written(const std::string& prefix);

// The summary with its first letter in the chosen case ("Use x" -> "use x").
std::string with_verb_case(std::string summary, bool lower);

// The fallback for trees without history: `table`'s convention for the file, else
// prefix_from_path(). `module` may be empty.
std::string prefix_from_maintainers(const Maintainers& maintainers, const std::string& file,
                                    const std::string& module, const SubjectTable& table);
// The same with shipped_subject_table().
std::string prefix_from_maintainers(const Maintainers& maintainers, const std::string& file,
                                    const std::string& module);

// The MAINTAINERS-and-path heuristic alone ("input: xpad", "tpm: st33zp24").
std::string prefix_from_path(const Maintainers& maintainers, const std::string& file,
                             const std::string& module);

} // namespace ksweep::series
