// unified_diff: the fix as `git diff` would print it, from libgit2's buffer diff.
#include "rewrite/fixer.h"

#include <git2.h>
#include <memory>
#include <stdexcept>

namespace ksweep {

namespace {

// libgit2 wants init/shutdown around every use; this keeps one reference per call.
struct Libgit2 {
    Libgit2() { git_libgit2_init(); }
    ~Libgit2() { git_libgit2_shutdown(); }
};

std::string file_diff(const FileFix& fix) {
    git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
    opts.context_lines = 3;
    git_patch* raw = nullptr;
    if (git_patch_from_buffers(&raw, fix.original.data(), fix.original.size(), fix.file.c_str(),
                               fix.fixed.data(), fix.fixed.size(), fix.file.c_str(), &opts) != 0)
        throw std::runtime_error(fix.file + ": cannot diff: " + git_error_last()->message);
    std::unique_ptr<git_patch, decltype(&git_patch_free)> patch(raw, git_patch_free);
    git_buf buf = GIT_BUF_INIT;
    if (git_patch_to_buf(&buf, patch.get()) != 0)
        throw std::runtime_error(fix.file + ": cannot print the diff");
    std::string out(buf.ptr, buf.size);
    git_buf_dispose(&buf);
    return out;
}

} // namespace

std::string unified_diff(const FixResult& result) {
    Libgit2 libgit2;
    std::string out;
    for (const FileFix& fix : result.files)
        out += file_diff(fix);
    return out;
}

} // namespace ksweep
