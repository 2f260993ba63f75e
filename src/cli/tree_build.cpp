#include "cli/tree_build.h"

#include "cli/args.h"

#include <cstdio>

namespace ksweep::cli {

void TreeBuildOptions::add_to(ArgParser& args, bool with_hz) {
    args.option("--build-dir", &build_dir, "DIR",
                "prepared kernel build dir of the tree's version (default: the tree's own, "
                "installed headers of its version, or one ksweep prepares in its cache)");
    args.option("--config", &config_file, "FILE",
                "the .config ksweep prepares its build dir from (default: allmodconfig)");
    if (with_hz)
        args.option("--hz", &hz, "N", "CONFIG_HZ for the sleep model (default: the build dir's)");
}

TreeBuild resolve_tree_build(const std::string& command, const std::string& tree,
                             const TreeBuildOptions& options, bool semantic) {
    if (options.hz < 0)
        throw kbuild::BuildDirError("--hz must be positive");
    kbuild::BuildDirRequest request;
    request.tree = tree;
    request.build_dir = options.build_dir;
    request.config_file = options.config_file;
    request.may_prepare = semantic;
    request.on_progress = [&](const std::string& what) {
        std::fprintf(stderr, "ksweep %s: %s\n", command.c_str(), what.c_str());
    };
    TreeBuild result;
    result.build = kbuild::resolve_build_dir(request);
    result.hz = kbuild::choose_hz(options.hz, result.build);
    std::fprintf(stderr, "ksweep %s: %s\n", command.c_str(),
                 kbuild::describe(result.build, result.hz).c_str());
    return result;
}

} // namespace ksweep::cli
