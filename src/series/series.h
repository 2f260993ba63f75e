// `ksweep series`: a fix result becomes commits on a new branch and a mailing-list-ready
// series of git format-patch mails with a cover letter.
//
// Nothing of the user's checkout changes: commits are made from blobs and trees in memory
// (git_tree_create_updated on the base commit's tree), the branch is created without being
// checked out, and no index or work-tree file is written.
#pragma once

#include "core/rule.h"
#include "git/git_handle.h"
#include "kbuild/sleep_api.h"
#include "rewrite/fixer.h"
#include "series/grouping.h"
#include "series/sweep_index.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::series {

struct SeriesOptions {
    std::string tree;    // the kernel tree the fix was made in
    std::string out_dir; // empty: patches/<branch>; holds index.{json,md} and a folder a series
    bool force = false;  // write into a non-empty out_dir that holds no index of an earlier run
    int reroll = 0;      // -v N; 0: a new series is v1, one of an earlier run keeps its version
    GroupBy group = GroupBy::Driver;
    std::string signoff;     // "Name <mail>"; empty: git config user.name/user.email
    std::string report;      // validation report JSON; empty: none
    std::string branch;      // empty: ksweep/<rule>-<YYYYMMDD>
    std::string cache_dir;   // scratch repositories; empty: ksweep::cache_dir()
    std::string signature;   // after "-- "; empty: "ksweep <version>"
    size_t max_patches = 15; // per series (submitting-patches.rst: "15 or so at a time")
    bool plan_only = false;  // decide everything, write nothing: SeriesResult::index only
    bool thread = true;      // Message-Id / In-Reply-To like git format-patch --thread
    long long now = 0;       // seconds since the epoch; 0: the current time (tests pin it)
    // What the tree's sources say about its sleep functions; nullopt: read from `tree`.
    std::optional<kbuild::SleepApi> sleep_api;
    std::string hz_label; // the fix's HZ and where it came from (kbuild::HzChoice::label)
    // Called after each patch is committed and mailed (done of total, the series' name).
    std::function<void(size_t, size_t, const std::string&)> progress;
};

struct WrittenSeries {
    std::string name;      // the series' folder under the output, kept across runs
    std::string change_id; // kept across runs
    std::string branch;
    std::string dir;
    std::string base;                  // base commit, hex
    std::vector<std::string> files;    // mail files written, cover letter first
    std::vector<std::string> subjects; // patch subjects without the [PATCH] part
    std::vector<std::string> to, cc;   // the cover letter's recipients
};

struct SeriesResult {
    std::vector<WrittenSeries> series; // one per maintainer tree, or per part of a tree's patches
    SweepIndex index;                  // what index.json holds (and the plan, with plan_only)
    std::string index_path;            // index.json written; "" with plan_only
    std::vector<std::string> warnings; // files left out, and why
    // Where each patch's subject prefix came from and what the cover letter's is, one line each
    // ("prefix 'tpm: ' from history (7 of 10 commits touching ...)"); the CLI prints them.
    std::vector<std::string> prefix_notes;
    bool scratch = false;       // the tree was not a git repository
    std::string repository;     // where the commits are
    size_t pruned_branches = 0; // old ksweep/* branches deleted (scratch repository only)
    // Seconds spent opening the repository (a scratch repository's base: snapshotting the tree
    // the first time, reading its content key after), and packing the run's objects.
    double repository_seconds = 0, pack_seconds = 0;
};

// Throws std::runtime_error (GitError, RuleError...) with a message for the user; nothing has
// been written when the output directory or identity is unusable.
SeriesResult write_series(const Rule& rule, const FixResult& fix, const SeriesOptions& in);

// `wanted`, or wanted-2, -3... when taken in `repo`, by `also_taken` or by another run that
// reserved it; NAME-<suffix> must be free too for each of `suffixes` (the branches of a sweep's
// series). With `reserve`, the name is held for this run until release_branch_name().
std::string unique_branch_name(git_repository* repo, const std::string& wanted,
                               const std::vector<std::string>& suffixes = {},
                               const std::function<bool(const std::string&)>& also_taken = {},
                               bool reserve = true);
void release_branch_name(git_repository* repo, const std::string& name);

} // namespace ksweep::series
