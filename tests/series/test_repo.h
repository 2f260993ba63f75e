// Helpers for series tests: temporary directories, shell commands, small git repositories made
// with the real git command line.
#pragma once

#include "test_files.h"

#include <string>
#include <vector>

namespace ksweep::test {

// A directory under $TMPDIR removed (with everything in it) when this goes away.
class TempDir {
  public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }

  private:
    std::string path_;
};

struct CommandResult {
    int status = -1;    // exit status; -1 when it did not exit normally
    std::string output; // stdout (and stderr when merged)
};

// Runs `command` with /bin/sh; stderr goes to stdout when merge_stderr.
CommandResult run(const std::string& command, bool merge_stderr = true);

// Single-quotes for the shell.
std::string quote(const std::string& s);

std::string read_file(const std::string& path);

// `git init` with a fixed identity and core.abbrev=12 (what ksweep's mails use).
void init_repo(const std::string& dir);

// The text without trailing newlines.
std::string trim_newline(std::string s);

// The one series folder `ksweep series -o DIR` wrote for a single maintainer tree (beside
// index.json and index.md); "" (and a test failure) when there is not exactly one.
std::string only_series_dir(const std::string& out);

// git -C dir <args>; fails the test on a non-zero exit.
std::string run_git(const std::string& dir, const std::string& args);

// scripts/scratch-checkout.sh: a clone of `scratch` (the scratch repository ksweep made for
// `tree`, a tree outside git) sharing its objects, with `dirs` checked out in cone mode at
// `commit`, in `into`, and a test identity. Fails the test when it fails.
void scratch_checkout(const std::string& scratch, const std::string& tree,
                      const std::string& commit, const std::vector<std::string>& dirs,
                      const std::string& into);

} // namespace ksweep::test
