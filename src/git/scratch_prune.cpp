#include "git/scratch_prune.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace ksweep::git {

namespace {

using BranchIterator = GitPtr<git_branch_iterator, git_branch_iterator_free>;

const std::string kBranchPrefix = "refs/heads/ksweep/";

struct Branch {
    Reference ref;
    std::string name; // short: ksweep/...
    git_time_t committed = 0;
};

std::vector<Branch> ksweep_branches(git_repository* repo) {
    git_branch_iterator* raw_it = nullptr;
    check(git_branch_iterator_new(&raw_it, repo, GIT_BRANCH_LOCAL), "git_branch_iterator_new");
    BranchIterator it(raw_it);
    std::vector<Branch> out;
    for (;;) {
        git_reference* raw = nullptr;
        git_branch_t type;
        int rc = git_branch_next(&raw, &type, it.get());
        if (rc == GIT_ITEROVER)
            break;
        check(rc, "git_branch_next");
        Branch b;
        b.ref.reset(raw);
        const std::string full = git_reference_name(raw);
        if (full.rfind(kBranchPrefix, 0) != 0)
            continue;
        b.name = full.substr(std::string("refs/heads/").size());
        git_object* peeled = nullptr;
        check(git_reference_peel(&peeled, raw, GIT_OBJECT_COMMIT), "git_reference_peel");
        Object tip(peeled);
        b.committed = git_commit_committer(reinterpret_cast<git_commit*>(tip.get()))->when.time;
        out.push_back(std::move(b));
    }
    return out;
}

} // namespace

size_t prune_scratch_branches(const ScratchRepository& scratch,
                              const std::vector<std::string>& just_created, size_t keep) {
    std::vector<Branch> branches = ksweep_branches(scratch.get());
    if (branches.size() <= keep)
        return 0;
    std::sort(branches.begin(), branches.end(), [](const Branch& a, const Branch& b) {
        return std::tie(a.committed, a.name) < std::tie(b.committed, b.name);
    });
    const std::set<std::string> fresh(just_created.begin(), just_created.end());
    size_t excess = branches.size() - keep, deleted = 0;
    // The commits, trees and blobs only these branches reached stay behind as unreachable loose
    // objects: a few KiB a run in a cache directory, and libgit2 has no gc to call.
    for (auto& b : branches) {
        if (deleted == excess)
            break;
        if (fresh.count(b.name))
            continue;
        check(git_branch_delete(b.ref.get()), "git_branch_delete");
        ++deleted;
    }
    return deleted;
}

} // namespace ksweep::git
