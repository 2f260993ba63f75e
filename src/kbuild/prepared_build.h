// The build directory every command parses, builds and boots against, chosen once per run:
// the user's (--build-dir, checked against the tree's version), one that already matches (the
// tree prepared in place, or Debian's linux-headers-<ver> of exactly the tree's version), or
// one ksweep makes with the tree's own kbuild — `make O=<cache>/builds/<key> <config>` then
// `modules_prepare` — never writing into the tree. Made builds are keyed by the tree's
// fingerprint, the config and the compiler, locked while being made, and trusted only once
// complete, so an interrupted run leaves nothing a later run uses.
#pragma once

#include "core/sleep_model.h"

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

namespace ksweep::kbuild {

struct BuildDirRequest {
    std::string tree;
    std::string build_dir;   // --build-dir: used as given once its version matches the tree
    std::string config_file; // --config: the .config to prepare from (default: allmodconfig)
    bool may_prepare = true; // false: only find one (a lexical-only run needs none)
    std::string cache_dir;   // default: cache_dir()
    std::function<void(const std::string&)> on_progress = {};
};

struct BuildDir {
    // How it was chosen: the user's, the tree itself, installed headers, or made by ksweep
    // (allmodconfig or --config; from this tree or a full tree of its version).
    enum class Kind { None, Given, TreeInPlace, InstalledHeaders, Made };
    Kind kind = Kind::None;
    std::string dir;           // "" when there is none
    std::string origin;        // how it was chosen, for the summary line
    std::string config_source; // what its .config came from
    std::optional<KernelVersion> version;
    std::optional<int> hz;   // CONFIG_HZ of its .config
    std::string missing;     // when dir is "": why there is none, and what would give one
    bool made_now = false;   // ksweep ran the tree's kbuild for it in this call
    double make_seconds = 0; // how long that took
    // A tree without sources of its own outside what it checks out (a sparse checkout: no
    // include/linux) cannot be parsed with an O= build dir alone, which holds only generated
    // headers: `sources` is the full tree that build dir was made from, and `parse_view` a
    // directory in the cache that shows both in a prepared tree's layout (symbolic links into
    // them, nothing copied). Both "" otherwise.
    std::string sources;
    std::string parse_view;

    // The build dir a parse uses: parse_view when there is one, else dir. (make -C uses dir.)
    const std::string& parse_dir() const { return parse_view.empty() ? dir : parse_view; }
};

// A build dir that cannot be had as asked: another version than the tree's, a kbuild that
// fails (its error lines quoted), a tree kbuild refuses to build elsewhere. The message says
// what to do; commands exit 2 with it.
class BuildDirError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

BuildDir resolve_build_dir(const BuildDirRequest& request);

// The kernel version a build dir is for: its own Makefile's, its `source` tree's, Debian's
// -common sibling's, or include/config/kernel.release. nullopt when none of them says.
std::optional<KernelVersion> build_dir_version(const std::string& dir);

struct HzChoice {
    int hz = 250;
    std::string source; // "--hz", "CONFIG_HZ in <dir>/.config", or why it is assumed
    // The same in words that can be mailed, naming no path of this machine, for every figure
    // the sleep model gives: "HZ=250 from the tree's .config", "HZ=250 from allmodconfig (the
    // build dir ksweep made; the tree has no .config)", "HZ=1000 as given with --hz".
    std::string label;
};

// --hz when given (> 0), else the build dir's CONFIG_HZ, else 250 with the reason; `label`
// says which of those it is, from the build dir's kind.
HzChoice choose_hz(int requested, const BuildDir& build);

// One line for a command's summary: the build dir and how it was chosen, the config it came
// from, the kernel version, HZ and where HZ came from.
std::string describe(const BuildDir& build, const HzChoice& hz);

} // namespace ksweep::kbuild
