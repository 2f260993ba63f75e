// Which changed files go into one patch: one patch per driver by default, where a driver is a
// module as the directory's Makefile/Kbuild builds it (obj-$(CONFIG_X) += foo.o, with foo-y /
// foo-objs composites), or else the file itself. Other groupings: per file, per directory,
// per MAINTAINERS section.
#pragma once

#include "series/maintainers.h"

#include <optional>
#include <string>
#include <vector>

namespace ksweep::series {

enum class GroupBy { Driver, File, Dir, Maintainer };

// "driver", "file", "dir", "maintainer"; nullopt for anything else.
std::optional<GroupBy> parse_group_by(const std::string& name);

struct PatchGroup {
    std::string key;           // what makes files one patch, e.g. "module drivers/char/tpm/tpm"
    std::string module;        // the module's name when the group is one ("tpm_nsc"), else ""
    std::string module_dir;    // the directory whose Makefile builds it
    std::vector<size_t> files; // indices into the caller's file list, in path order
};

// The module a source file belongs to, read from the Makefiles of its directory and the two
// directories above it (a composite may list "eventlog/common.o"). nullopt: none found.
struct ModuleOf {
    std::string name; // "tpm" for tpm-chip.c, "tpm_nsc" for tpm_nsc.c
    std::string dir;  // tree-relative directory of the Makefile, "drivers/char/tpm"
};
std::optional<ModuleOf> module_of(const std::string& tree, const std::string& file);

// Groups tree-relative `files` (in path order); groups come out in order of their first file.
// `maintainers` is needed for GroupBy::Maintainer only.
std::vector<PatchGroup> group_files(const std::string& tree, const std::vector<std::string>& files,
                                    GroupBy by, const Maintainers* maintainers);

} // namespace ksweep::series
