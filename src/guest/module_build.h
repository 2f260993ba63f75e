// The guest's driver builds against a prepared build directory (the guest kernel's O= build,
// guest_build.h; or Debian's linux-headers-<release>): the driver's sources and the private
// headers they include with "..." (found beside them, then in include_dirs), built by kbuild's
// one external module builder (kbuild/module_build.h: generated Kbuild, content-keyed cache).
// Used for the driver under test, baseline and patched, in the guest. A failed build is not
// kept: the next call tries again.
#pragma once

#include "kbuild/module_build.h"

#include <string>
#include <vector>

namespace ksweep::guest {

using kbuild::KbuildTarget; // one module of several objects, as the tree's Makefile makes it

struct ModuleBuildRequest {
    // Driver .c files; without `targets` each builds one module named after its file
    // (i2c-virtio.c -> i2c-virtio.ko).
    std::vector<std::string> sources;
    // Where #include "..." files are looked for after the including file's own directory
    // (e.g. the tree's drivers/char/tpm when the source is a patched copy elsewhere).
    std::vector<std::string> include_dirs;
    std::string headers_dir;
    std::string cache_dir;
    // Where the sources sit inside the build ("drivers/char/tpm/st33zp24"), so that an include of
    // "../tpm.h" finds its copy where the tree has it; "": at the top.
    std::string subdir = {};
    // The modules to build from the sources, in load order; empty: one per source.
    std::vector<KbuildTarget> targets = {};
};

struct ModuleBuildResult {
    bool ok = false;
    bool cached = false;               // found in the cache, make did not run
    std::string dir;                   // the build directory (sources, Kbuild, build.log)
    std::string log_path;              // make's output
    std::vector<std::string> modules;  // .ko paths, in the order of the targets (or sources)
    std::vector<std::string> warnings; // compiler and modpost warning lines
    std::string error;                 // why it failed: the error lines, or what was missing
};

ModuleBuildResult build_modules(const ModuleBuildRequest& request);

} // namespace ksweep::guest
