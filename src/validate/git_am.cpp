#include "validate/git_am.h"

#include "core/process.h"
#include "core/strings.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep::validate {

namespace {

constexpr std::chrono::seconds kGitTimeout{600};

} // namespace

ScratchCheckout::ScratchCheckout(const std::string& repository, const std::string& base,
                                 const std::vector<std::string>& sparse_dirs,
                                 const std::vector<std::string>& file_dirs, const std::string& dir)
    : dir_(fs::absolute(dir).string()), sparse_dirs_(sparse_dirs), file_dirs_(file_dirs) {
    if (fs::exists(dir_))
        throw GitAmError("scratch checkout '" + dir_ + "' already exists");
    CommandResult clone = run_command({"git", "clone", "--quiet", "--shared", "--no-checkout",
                                       fs::absolute(repository).string(), dir_},
                                      "", kGitTimeout);
    if (clone.status != 0)
        throw GitAmError("cannot clone '" + repository + "': " + trim(clone.output));
    // An identity for the commits git am makes here (they never leave this directory), and no
    // hooks or signing from the user's global configuration.
    git({"config", "user.name", "ksweep validate"});
    git({"config", "user.email", "ksweep@localhost"});
    git({"config", "commit.gpgsign", "false"});
    git({"config", "core.hooksPath", "/dev/null"});
    // The scratch repository of a tree outside git holds few of its files' content
    // (git/base_blobs.h; validate writes what this checkout needs first). As a partial clone,
    // git lets the files the sparse checkout leaves out be missing (it never reads them), where
    // it would otherwise refuse to write a commit's tree.
    git({"config", "core.repositoryformatversion", "1"});
    git({"config", "extensions.partialClone", "origin"});
    git({"config", "remote.origin.promisor", "true"});
    set_sparse();
    CommandResult checkout =
        run_command({"git", "-C", dir_, "checkout", "--quiet", "--detach", base}, "", kGitTimeout);
    if (checkout.status != 0)
        throw GitAmError("base commit " + base + " cannot be checked out from '" + repository +
                         "': " + trim(checkout.output));
}

ScratchCheckout::~ScratchCheckout() {
    std::error_code ignored;
    if (!keep_)
        fs::remove_all(dir_, ignored);
}

std::string ScratchCheckout::git(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{"git", "-C", dir_};
    argv.insert(argv.end(), args.begin(), args.end());
    CommandResult r = run_command(argv, "", kGitTimeout);
    if (r.status != 0)
        throw GitAmError("git " + args.front() + " failed in " + dir_ + ": " + trim(r.output));
    return trim(r.output);
}

void ScratchCheckout::set_sparse() {
    // Non-cone patterns: each directory with everything below it, anchored at the top.
    // The top-level files are always there: checkpatch.pl insists on them to believe it is
    // in a kernel tree, and they are small.
    // Later patterns override earlier ones: files of a directory but not its subdirectories
    // first, whole directories last.
    std::vector<std::string> args{"sparse-checkout", "set", "--no-cone", "/*", "!/*/"};
    for (const auto& d : file_dirs_) {
        args.push_back("/" + d + "/*");
        args.push_back("!/" + d + "/*/");
    }
    for (const auto& d : sparse_dirs_)
        args.push_back("/" + d + "/");
    git(args);
}

std::string ScratchCheckout::head() const {
    return git({"rev-parse", "HEAD"});
}

void ScratchCheckout::include(const std::vector<std::string>& dirs) {
    bool changed = false;
    for (const auto& d : dirs)
        if (std::find(sparse_dirs_.begin(), sparse_dirs_.end(), d) == sparse_dirs_.end()) {
            sparse_dirs_.push_back(d);
            changed = true;
        }
    if (changed)
        set_sparse(); // git re-applies the patterns to the work tree at once
}

AmResult ScratchCheckout::am(const std::string& patch_path) {
    AmResult result;
    CommandResult r = run_command(
        {"git", "-C", dir_, "am", "--quiet", fs::absolute(patch_path).string()}, "", kGitTimeout);
    if (r.status == 0) {
        result.applied = true;
        result.commit = head();
        return result;
    }
    result.message = trim(r.output);
    if (result.message.empty())
        result.message = r.status < 0 ? "git am timed out" : "git am failed";
    run_command({"git", "-C", dir_, "am", "--abort"}, "", kGitTimeout);
    return result;
}

std::string git_head_of(const std::string& tree) {
    CommandResult r = run_command({"git", "-C", tree, "rev-parse", "--verify", "--quiet", "HEAD"},
                                  "", kGitTimeout);
    return r.status == 0 ? trim(r.output) : "";
}

} // namespace ksweep::validate
