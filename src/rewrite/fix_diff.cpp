// unified_diff: the fix as `git diff` would print it, from libgit2's buffer diff.
#include "git/git_handle.h"
#include "rewrite/fixer.h"

#include <stdexcept>

namespace ksweep {

namespace {

std::string file_diff(const FileFix& fix) {
    git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
    opts.context_lines = 3;
    git_patch* raw = nullptr;
    if (git_patch_from_buffers(&raw, fix.original.data(), fix.original.size(), fix.file.c_str(),
                               fix.fixed.data(), fix.fixed.size(), fix.file.c_str(), &opts) != 0)
        throw std::runtime_error(fix.file + ": cannot diff: " + git_error_last()->message);
    git::Patch patch(raw);
    git::Buf buf;
    if (git_patch_to_buf(&buf.buf, patch.get()) != 0)
        throw std::runtime_error(fix.file + ": cannot print the diff");
    return buf.str();
}

} // namespace

std::string unified_diff(const FixResult& result) {
    git::LibGit2 libgit2; // libgit2 initialised for the length of the call
    std::string out;
    for (const FileFix& fix : result.files)
        out += file_diff(fix);
    return out;
}

} // namespace ksweep
