// L3's builds: one module, as the tree has it at one commit, built out of tree against the
// prepared headers with a Kbuild that names only that module (its composite objects and
// flags copied from the directory's Makefile), by kbuild's external module builder
// (kbuild/module_build.h). Builds are cached by content, failed ones too, so the baseline of
// patch N+1 is the already-built patched result of patch N.
#pragma once

#include "kbuild/modules.h"

#include <map>
#include <string>
#include <vector>

namespace ksweep::validate {

// tree-relative path -> content: what a build needs, independent of where the tree lives.
using SourceSnapshot = std::map<std::string, std::string>;

// Every source and header under the module's directory (recursively: composites list
// eventlog/x.o), the Makefile, and each "quoted" header those files include from outside it
// ("../tpm.h"), read from `root` (a checkout at the commit of interest).
SourceSnapshot snapshot_module(const std::string& root, const kbuild::KbuildModule& module);

struct KbuildResult {
    bool ok = false;
    bool cached = false;
    std::string dir; // the build directory (kept: objects, build.log)
    std::string log_path;
    std::string module_path;           // the .ko
    std::vector<std::string> warnings; // normalised: see normalise_warning()
    std::string error;
};

// A prepared build dir without the Module.symvers of a full build of its config (what ksweep
// prepares itself): modpost links without knowing other modules' and vmlinux's symbols, so
// unresolved symbols are not checked (their warnings are left out of the comparison).
bool linked_without_symvers(const std::string& build_dir);

KbuildResult build_module_snapshot(const SourceSnapshot& files, const kbuild::KbuildModule& module,
                                   const std::string& headers_dir, const std::string& cache_dir);

// "<build dir>/drivers/x/foo.c:12:5: warning: unused variable 'a' [-Wunused-variable]" ->
// "drivers/x/foo.c: warning: unused variable 'a' [-Wunused-variable]": no build directory, no
// line or column (a patch moves lines; the same warning must compare equal).
std::string normalise_warning(const std::string& line, const std::string& build_dir);

// Warnings in `patched` that `baseline` does not have (as a multiset: a second copy is new).
std::vector<std::string> new_warnings(const std::vector<std::string>& baseline,
                                      const std::vector<std::string>& patched);

} // namespace ksweep::validate
