// The build dir a command works with, chosen once per run and said in one line on stderr
// (`ksweep scan: build dir ... , Linux 6.12.117, HZ=250 (CONFIG_HZ in ...)`). The options every
// tree-reading command shares: --build-dir, --config, --hz.
#pragma once

#include "kbuild/prepared_build.h"

#include <string>

namespace ksweep::cli {

class ArgParser;

struct TreeBuildOptions {
    std::string build_dir;   // --build-dir
    std::string config_file; // --config
    int hz = 0;              // --hz; 0: the build dir's

    // `with_hz` false: the command's --hz means something else (validate: the guests' HZ).
    void add_to(ArgParser& args, bool with_hz = true);
};

struct TreeBuild {
    kbuild::BuildDir build;
    kbuild::HzChoice hz;

    // Where the tree's own sources are read (its sleep API): the full tree its build dir was
    // made from when `tree` is a sparse checkout of it, else `tree` itself.
    std::string sources_of(const std::string& tree) const {
        return build.sources.empty() ? tree : build.sources;
    }
};

// Finds or prepares the tree's build dir (`semantic` false: find only; a lexical-only run
// needs none), prints the summary line and the preparation's progress on stderr. Throws
// kbuild::BuildDirError (the command exits 2 with it).
TreeBuild resolve_tree_build(const std::string& command, const std::string& tree,
                             const TreeBuildOptions& options, bool semantic = true);

} // namespace ksweep::cli
