// L1: does each patch apply with `git am` on its base? Done in a scratch clone that shares the
// source repository's objects (git clone --shared --no-checkout) and checks out only the
// directories the series needs (sparse), so the user's checkout, index and refs are never
// touched and a kernel-sized tree costs seconds, not a full checkout.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::validate {

struct GitAmError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct AmResult {
    bool applied = false;
    std::string commit;  // HEAD after the patch (when applied)
    std::string message; // git am's own words when it failed
};

class ScratchCheckout {
  public:
    // Clones `repository` (a work tree or a bare/git dir) into `dir` (must not exist) and
    // checks out `base` with only the top-level files, the files directly in `file_dirs` and
    // everything below `sparse_dirs` (tree-relative directories). Throws GitAmError with git's
    // message on failure (e.g. the base commit is not in the repository).
    ScratchCheckout(const std::string& repository, const std::string& base,
                    const std::vector<std::string>& sparse_dirs,
                    const std::vector<std::string>& file_dirs, const std::string& dir);
    ~ScratchCheckout();
    ScratchCheckout(const ScratchCheckout&) = delete;
    ScratchCheckout& operator=(const ScratchCheckout&) = delete;

    const std::string& dir() const { return dir_; }
    std::string head() const;
    // Adds more directories to the checkout (e.g. a module's directory above a touched file).
    void include(const std::vector<std::string>& dirs);
    // git am of one mail; a failed am is aborted, so HEAD stays where it was.
    AmResult am(const std::string& patch_path);
    // Leaves the checkout in place when the handle goes (validate --keep-work).
    void keep() { keep_ = true; }

  private:
    std::string git(const std::vector<std::string>& args) const; // throws on failure
    void set_sparse();

    std::string dir_;
    std::vector<std::string> sparse_dirs_, file_dirs_;
    bool keep_ = false;
};

// The commit a tree's HEAD points to when `tree` is inside a git work tree; "" otherwise.
std::string git_head_of(const std::string& tree);

} // namespace ksweep::validate
