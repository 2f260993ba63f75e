// External module builds against a prepared build dir (ksweep's O= build of a tree, a guest
// kernel's build, or Debian's linux-headers-<release>): the files written into a directory of
// the cache with a generated Kbuild that names the modules, then
// `make -C <build dir> M=<dir> modules`. The one builder behind L3's baseline/patched builds
// (validate/levels_module_build.h) and the guest's driver builds (guest/module_build.h).
//
// Each build lives in <cache_dir>/<key>, where the key hashes the build dir, its kernel release,
// the make arguments and every file that goes in (the Kbuild included), so building the same
// files again is instant and two inputs never share a stale object. It is made under a lock and
// trusted only once complete (core/cache_entry.h).
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace ksweep::kbuild {

// One module of the build, as the tree's Makefile makes it.
struct KbuildTarget {
    std::string name;               // "tpm_st33zp24"
    std::vector<std::string> lines; // its Makefile lines: "tpm_st33zp24-objs = st33zp24.o", flags
};

// The generated Kbuild: `# <comment>`, then for each target `obj-m += <name>.o` and its lines,
// each line once (flag lines repeat per module).
std::string kbuild_file(const std::string& comment, const std::vector<KbuildTarget>& targets);

struct ExternalModuleBuild {
    std::map<std::string, std::string> files; // path inside the build dir -> content
    std::string module_dir;                   // where the Kbuild goes (M=), inside; "": the top
    std::string kbuild_comment;
    std::vector<KbuildTarget> targets; // in load order
    std::string build_dir;             // the prepared kernel build dir (make -C)
    std::string cache_dir;
    std::vector<std::string> make_args = {}; // before "modules" ("KCFLAGS=-Wno-error")
    // A failed build is a result too, served from the cache as failed (L3: the same inputs fail
    // the same way); false: tried again by the next call.
    bool keep_failures = false;
    // make's time limit (0: none); a build that runs out of it is never kept.
    std::chrono::seconds timeout = std::chrono::seconds(0);
};

struct ExternalModuleBuildResult {
    bool ok = false;
    bool cached = false;              // found in the cache, make did not run
    std::string dir;                  // the build directory (files, Kbuild, objects, build.log)
    std::string log_path;             // make's output
    std::string log;                  // its text
    std::vector<std::string> modules; // .ko paths, in the order of the targets
    std::string error;                // why it failed: make's error lines, or what was missing
};

// Throws std::runtime_error when the cache cannot be written.
ExternalModuleBuildResult build_external_modules(const ExternalModuleBuild& build);

// The compiler and modpost warning lines of a make log, as printed.
std::vector<std::string> build_warning_lines(const std::string& log);

} // namespace ksweep::kbuild
