#include "kbuild/tree_fingerprint.h"

#include "core/cache_dir.h"
#include "core/process.h"
#include "git/tree_content.h"

namespace ksweep::kbuild {

namespace {

bool is_build_file(std::string_view name) {
    return name.starts_with("Kconfig") || name.starts_with("Makefile") ||
           name.starts_with("Kbuild");
}

} // namespace

TreeFingerprint tree_fingerprint(const std::string& tree, const std::string& cache_dir_arg,
                                 const std::string& arch) {
    git::FileSelection prepare_inputs;
    prepare_inputs.dirs = {"scripts/", "include/", "tools/", "arch/" + arch + "/"};
    prepare_inputs.named = is_build_file;
    const git::TreeContent content = git::tree_content(
        tree, prepare_inputs, cache_dir_arg.empty() ? cache_dir() : cache_dir_arg);
    return {git::content_key(content, "ksweep tree fingerprint v2 arch=" + arch), content.how};
}

std::string compiler_identity() {
    CommandResult gcc = run_command({"gcc", "--version"}, "", std::chrono::seconds(30));
    std::string first = gcc.output.substr(0, gcc.output.find('\n'));
    return gcc.status == 0 ? first : "no gcc";
}

} // namespace ksweep::kbuild
