// The repository a series is committed to, and the commit it starts from.
//
// A tree inside a git work tree uses that repository and its HEAD; nothing is checked out, no
// index or work-tree file is written. A tree that is not in a repository gets a scratch bare
// repository in a cache directory, whose base commit is the tree exactly as it is on disk (read
// file by file: Debian's linux-source tree has a .gitignore that ignores everything, so git add
// semantics would lose it). The repository is keyed by the tree's content (tree_content.h:
// every file's path, mode and blob id, memoised), never its path: every copy of the same files
// shares it, and a changed tree gets another. Its objects are written as packs (pack_writer.h);
// its base holds every tree but only the top-level files' content, the rest being written when
// a run needs it (base_blobs.h).
#pragma once

#include "git/git_handle.h"

#include <functional>
#include <optional>
#include <string>

namespace ksweep::git {

struct SeriesRepo;
struct ScratchStats;

// Opens the repository containing `tree`, or creates/reuses a scratch one under `cache_dir`.
// `progress(files_done)` is called while a new scratch base is being written.
SeriesRepo open_series_repo(const std::string& tree, const std::string& cache_dir,
                            ScratchStats* stats = nullptr,
                            const std::function<void(size_t)>& progress = {});

// A scratch repository that ksweep made and owns, as opposed to a user's repository. Only
// open_series_repo can make one, so code that deletes refs (scratch_prune.h) takes this type and
// cannot be handed a user's repository. Borrows the handle of the SeriesRepo it comes from.
class ScratchRepository {
  public:
    git_repository* get() const { return repo_; }

  private:
    friend SeriesRepo open_series_repo(const std::string&, const std::string&, ScratchStats*,
                                       const std::function<void(size_t)>&);
    explicit ScratchRepository(git_repository* repo) : repo_(repo) {}
    git_repository* repo_;
};

struct SeriesRepo {
    Repository repo;
    git_oid base{};          // the commit the series starts from
    std::string tree_prefix; // the tree's path inside the repository ("" or "sub/dir/")
    std::string git_dir;     // where the repository lives
    // Set exactly when this is a scratch repository ksweep made for a tree outside git.
    std::optional<ScratchRepository> owned;
};

struct ScratchStats {
    size_t files = 0;
    size_t bytes = 0;
    bool reused = false; // the cached base matched the fingerprint
};

} // namespace ksweep::git
