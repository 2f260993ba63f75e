// `ksweep series`: a fix result becomes commits on a new branch and a mailing-list-ready
// series of git format-patch mails with a cover letter.
//
// Nothing of the user's checkout changes: commits are made from blobs and trees in memory
// (git_tree_create_updated on the base commit's tree), the branch is created without being
// checked out, and no index or work-tree file is written.
#pragma once

#include "core/rule.h"
#include "git/git_handle.h"
#include "rewrite/fixer.h"
#include "series/grouping.h"

#include <functional>
#include <string>
#include <vector>

namespace ksweep::series {

struct SeriesOptions {
    std::string tree;    // the kernel tree the fix was made in
    std::string out_dir; // empty: patches/<branch>
    bool force = false;  // write into a non-empty out_dir (its *.patch files are replaced)
    int reroll = 0;      // -v N
    GroupBy group = GroupBy::Driver;
    std::string signoff;   // "Name <mail>"; empty: git config user.name/user.email
    std::string report;    // validation report JSON; empty: none
    std::string branch;    // empty: ksweep/<rule>-<YYYYMMDD>
    std::string cache_dir; // scratch repositories; empty: ksweep::cache_dir()
    std::string signature; // after "-- "; empty: "ksweep <version>"
    size_t max_patches = 15;
    bool thread = true; // Message-Id / In-Reply-To like git format-patch --thread
    long long now = 0;  // seconds since the epoch; 0: the current time (tests pin it)
};

struct WrittenSeries {
    std::string branch;
    std::string dir;
    std::string base;                  // base commit, hex
    std::vector<std::string> files;    // mail files written, cover letter first
    std::vector<std::string> subjects; // patch subjects without the [PATCH] part
    std::vector<std::string> to, cc;   // the cover letter's recipients
};

struct SeriesResult {
    std::vector<WrittenSeries> series; // more than one when there were more than max_patches
    std::vector<std::string> warnings; // files left out, and why
    bool scratch = false;              // the tree was not a git repository
    std::string repository;            // where the commits are
    size_t pruned_branches = 0;        // old ksweep/* branches deleted (scratch repository only)
};

// Throws std::runtime_error (GitError, RuleError...) with a message for the user; nothing has
// been written when the output directory or identity is unusable.
SeriesResult write_series(const Rule& rule, const FixResult& fix, const SeriesOptions& in);

// `wanted`, or wanted-2, -3... when taken in `repo` or by `also_taken`; with parts > 1 the
// name's parts (NAME-1..NAME-parts) must be free too.
std::string unique_branch_name(git_repository* repo, const std::string& wanted, size_t parts = 1,
                               const std::function<bool(const std::string&)>& also_taken = {});

} // namespace ksweep::series
