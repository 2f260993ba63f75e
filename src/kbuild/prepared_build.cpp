#include "kbuild/prepared_build.h"

#include "core/cache_dir.h"
#include "core/cache_entry.h"
#include "core/file_io.h"
#include "core/process.h"
#include "core/sha256.h"
#include "kbuild/build_source.h"
#include "kbuild/kbuild_make.h"
#include "kbuild/kernel_tree.h"
#include "kbuild/tree_fingerprint.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::kbuild {

namespace {

// Written last into a made build dir: without it the directory is an interrupted attempt.
constexpr const char* kPreparedMarker = ".ksweep-prepared";
// ksweep's default config when the user gives none: every driver enabled (as a module), so
// every file parses with its own configuration's code and every module builds (L3).
constexpr const char* kDefaultConfig = "allmodconfig";

bool same_version(const KernelVersion& a, const KernelVersion& b) {
    return a.major == b.major && a.minor == b.minor && a.sublevel == b.sublevel;
}

std::string absolute(const std::string& path) {
    return fs::absolute(path).lexically_normal().string();
}

std::optional<KernelVersion> version_from_release(const std::string& release) {
    KernelVersion v;
    if (std::sscanf(release.c_str(), "%d.%d.%d", &v.major, &v.minor, &v.sublevel) >= 2)
        return v;
    return std::nullopt;
}

// `version`: the tree's, already read, when the build dir is the tree's own (prepared in place,
// or made from it); otherwise read from the build dir.
BuildDir found(BuildDir::Kind kind, const std::string& dir, std::string origin,
               const std::optional<KernelVersion>& version = std::nullopt) {
    BuildDir b;
    b.kind = kind;
    b.dir = dir;
    b.origin = std::move(origin);
    b.config_source = ".config of " + dir;
    b.version = version ? version : build_dir_version(dir);
    b.hz = read_config_hz(dir);
    return b;
}

// A tree with its own headers; a sparse checkout of drivers/char/tpm has none.
bool has_sources(const fs::path& tree) {
    return fs::is_directory(tree / "include/linux");
}

// A directory in the layout of a prepared tree for parsing: include/ and arch/<a>/include/
// hold links to the entries of `sources`' directories and of `build_dir`'s (its generated
// headers and config), and .config links to the build dir's. The sources are reached through
// the build dir's `source` link when it has one, so the view follows whichever tree of the
// build dir's content uses it (build_source.h) and is keyed by the build dir alone, itself
// keyed by content. Made once, in the cache, like a build dir (complete only once its marker is
// written).
std::string make_parse_view(const std::string& build_dir, const std::string& sources,
                            const fs::path& cache_root) {
    std::error_code ec;
    const fs::path link = fs::path(build_dir) / "source";
    const fs::path through = fs::is_symlink(link, ec) ? link : fs::path(sources);
    Sha256 key_hash;
    key_hash.update("ksweep parse view v2\n" + build_dir + "\n" + through.string() + "\n");
    std::string key = to_hex(key_hash.finish()).substr(0, 16);
    CacheEntry entry = make_cache_entry(
        cache_root / "parse-views", key, ".ksweep-view", build_dir + "\n",
        [&](const fs::path& view) {
            std::vector<fs::path> dirs{"include"};
            for (const auto& arch : fs::directory_iterator(fs::path(build_dir) / "arch", ec))
                dirs.push_back(fs::path("arch") / arch.path().filename() / "include");
            for (const auto& rel : dirs) {
                fs::create_directories(view / rel);
                for (const auto& root : {through, fs::path(build_dir)})
                    for (const auto& e : fs::directory_iterator(root / rel, ec))
                        if (!fs::exists(view / rel / e.path().filename()))
                            fs::create_directory_symlink(root / rel / e.path().filename(),
                                                         view / rel / e.path().filename());
            }
            fs::create_symlink(fs::path(build_dir) / ".config", view / ".config");
        });
    return entry.dir.string();
}

// For a tree without its own sources, the full tree an O= build dir was made from, and the
// view that parses with both; nothing for a tree with sources or a build dir that holds its
// own (Debian's headers, through their -common sibling).
void add_sources_for(BuildDir& build, const std::string& tree, const fs::path& cache_root) {
    if (build.dir.empty() || has_sources(tree))
        return;
    std::string sources = source_tree_of(build.dir);
    if (sources.empty() || !has_sources(sources))
        return;
    build.sources = sources;
    build.parse_view = make_parse_view(build.dir, sources, cache_root);
    build.origin +=
        "; headers from " + sources + " (the tree has none of its own: a sparse checkout?)";
}

// How many of the files `tree` checks out (the first 4000, .git left out) `sources` holds with
// the same bytes: which full tree a sparse checkout was cut from.
size_t files_in_common(const fs::path& tree, const fs::path& sources) {
    size_t same = 0, seen = 0;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(tree, ec), end; it != end && seen < 4000;
         it.increment(ec)) {
        if (it->path().filename() == ".git") {
            it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(ec))
            continue;
        ++seen;
        const fs::path rel = it->path().lexically_relative(tree);
        if (fs::file_size(it->path(), ec) != fs::file_size(sources / rel, ec) || ec)
            continue;
        same += read_file(it->path()) == read_file(sources / rel);
    }
    return same;
}

// For a git checkout: of the headers its HEAD commit holds (include/, arch/x86/include/, checked
// out or not), how many `sources` has with the same content (git's blob ids), and how many it
// holds; nullopt when the tree is no git checkout.
std::optional<std::pair<size_t, size_t>> git_headers_in_common(const fs::path& tree,
                                                               const fs::path& sources) {
    CommandResult ls = run_command(
        {"git", "-C", tree.string(), "ls-tree", "-r", "HEAD", "--", "include", "arch/x86/include"},
        tree.string(), std::chrono::seconds(60));
    if (ls.status != 0)
        return std::nullopt;
    std::vector<std::string> ids;
    std::vector<std::string> argv{"git", "hash-object", "--no-filters", "--"};
    size_t total = 0;
    std::istringstream in(ls.output);
    for (std::string line; std::getline(in, line);) {
        // "100644 blob <id>\t<path>"
        auto tab = line.find('\t');
        if (tab == std::string::npos || line.rfind("100", 0) != 0 || line.size() < 52)
            continue;
        ++total;
        const fs::path file = sources / line.substr(tab + 1);
        if (!fs::is_regular_file(file))
            continue;
        ids.push_back(line.substr(12, 40));
        argv.push_back(file.string());
    }
    size_t same = 0;
    if (!ids.empty()) {
        CommandResult hashed = run_command(argv, sources.string(), std::chrono::seconds(120));
        if (hashed.status != 0)
            return std::nullopt;
        std::istringstream out(hashed.output);
        size_t i = 0;
        for (std::string id; std::getline(out, id) && i < ids.size(); ++i)
            same += id == ids[i];
    }
    return std::make_pair(same, total);
}

struct CachedBuild {
    std::string dir;
    size_t score = 0;
    std::string matched; // what the score counts, for the summary line
};

// A build dir ksweep made earlier from a full tree of `version`, for a tree that cannot make
// one itself: the one whose tree has most of this tree's headers (a git checkout: its commit's,
// checked out or not) or else of its files, as they are; then the newest. dir "" when there is
// none.
CachedBuild cached_build_of_version(const fs::path& cache_root, const std::string& tree,
                                    const KernelVersion& version) {
    CachedBuild best;
    fs::file_time_type newest;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cache_root / "builds", ec)) {
        if (!e.is_directory() || !cache_entry_complete(e.path(), kPreparedMarker))
            continue;
        std::string sources = source_tree_of(e.path());
        auto v = sources.empty() ? std::nullopt : read_kernel_version(sources);
        if (!v || !same_version(*v, version) || !has_sources(sources))
            continue;
        CachedBuild candidate{e.path().string(), 0, ""};
        if (auto headers = git_headers_in_common(tree, sources)) {
            candidate.score = headers->first;
            candidate.matched = std::to_string(headers->first) + " of the " +
                                std::to_string(headers->second) +
                                " headers of this checkout's commit as they are";
        } else {
            candidate.score = files_in_common(tree, sources);
            candidate.matched =
                std::to_string(candidate.score) + " of this tree's files as they are";
        }
        auto when = fs::last_write_time(e.path() / kPreparedMarker, ec);
        if (best.dir.empty() || candidate.score > best.score ||
            (candidate.score == best.score && when > newest))
            best = candidate, newest = when;
    }
    return best;
}

// `make O=DIR <config>` (or the user's .config and olddefconfig), then modules_prepare, in
// DIR under an exclusive lock; DIR counts only once the marker is written.
BuildDir make_build_dir(const BuildDirRequest& request, const std::string& tree,
                        const KernelVersion& version) {
    std::string config_text;
    std::string config_source = std::string(kDefaultConfig) + " (ksweep's default)";
    if (!request.config_file.empty()) {
        auto text = read_file(request.config_file);
        if (!text)
            throw BuildDirError("--config " + request.config_file + ": cannot read it");
        config_text = *text;
        config_source = "--config " + absolute(request.config_file);
    }
    const auto progress = [&](const std::string& what) {
        if (request.on_progress)
            request.on_progress(what);
    };

    const fs::path cache_root = request.cache_dir.empty() ? cache_dir() : request.cache_dir;
    // By content only: every checkout of the same prepare inputs shares the build dir.
    Sha256 key_hash;
    key_hash.update("ksweep prepared build v2\n");
    key_hash.update(tree_fingerprint(tree, cache_root.string()).key + "\n");
    key_hash.update(compiler_identity() + "\n");
    key_hash.update(config_text.empty() ? std::string(kDefaultConfig) : config_text);
    std::string key = "linux-" + to_string(version) + "-" + to_hex(key_hash.finish()).substr(0, 16);

    fs::path root = cache_root / "builds";
    auto start = std::chrono::steady_clock::now();
    auto prepare = [&](const fs::path& dir) {
        const std::string out = "O=" + dir.string();
        const std::string jobs = "-j" + std::to_string(make_jobs());
        std::vector<std::vector<std::string>> steps;
        if (config_text.empty()) {
            steps.push_back({"-C", tree, out, kDefaultConfig});
        } else {
            std::ofstream(dir / ".config") << config_text;
            steps.push_back({"-C", tree, out, "olddefconfig"});
        }
        steps.push_back({"-C", tree, out, jobs, "modules_prepare"});
        progress("preparing a build dir for " + tree + " (Linux " + to_string(version) + ", " +
                 config_source + ") in " + dir.string() + " (logs there); made once, then cached");
        size_t lines = 0;
        for (const auto& args : steps) {
            MakeRun run =
                run_make(args, tree, (dir / ("prepare-" + args.back() + ".log")).string(),
                         [&](const std::string& line) {
                             if (++lines % 50 == 0) {
                                 auto text = line.find_first_not_of(' ');
                                 progress("prepare: " + std::to_string(lines) + " steps, at " +
                                          line.substr(text == std::string::npos ? 0 : text, 60));
                             }
                         });
            if (run.status != 0)
                throw BuildDirError("preparing a build dir for " + tree + " failed: make " +
                                    args.back() + " exited " + std::to_string(run.status) +
                                    " (log " + run.log_path + "):\n" + run.errors);
        }
    };
    CacheEntry entry;
    try {
        entry = make_cache_entry(root, key, kPreparedMarker, config_source + "\n", prepare);
    } catch (const BuildDirError&) {
        throw;
    } catch (const std::runtime_error& e) {
        throw BuildDirError(e.what());
    }
    adopt_build_dir(entry.dir, tree); // its module builds read this tree's headers
    BuildDir build = found(BuildDir::Kind::Made, entry.dir.string(),
                           "made by ksweep with the tree's kbuild", version);
    build.config_source = config_source;
    if (!entry.made_now)
        return build;
    build.made_now = true;
    build.make_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress("prepared in " + std::to_string(static_cast<int>(build.make_seconds)) + " s");
    return build;
}

} // namespace

std::optional<KernelVersion> build_dir_version(const std::string& dir) {
    for (const char* makefile_dir : {"", "source"})
        if (auto v = read_kernel_version((fs::path(dir) / makefile_dir).string()))
            return v;
    // Debian: linux-headers-<ver>-<flavour>'s sources are in its -common sibling.
    std::string common = dir;
    if (auto dash = common.rfind('-'); dash != std::string::npos) {
        common.replace(dash, std::string::npos, "-common");
        if (common != dir)
            if (auto v = read_kernel_version(common))
                return v;
    }
    if (auto release = read_file(fs::path(dir) / "include/config/kernel.release"))
        return version_from_release(*release);
    return std::nullopt;
}

BuildDir resolve_build_dir(const BuildDirRequest& request) {
    const std::string tree = absolute(request.tree);
    auto version = read_kernel_version(tree);
    const fs::path cache_root = request.cache_dir.empty() ? cache_dir() : request.cache_dir;
    if (!request.build_dir.empty()) {
        if (!fs::is_directory(request.build_dir))
            throw BuildDirError("--build-dir " + request.build_dir + ": no such directory");
        BuildDir build = found(BuildDir::Kind::Given, absolute(request.build_dir), "--build-dir");
        if (version && !build.version)
            throw BuildDirError("--build-dir " + request.build_dir +
                                " does not say which kernel it is for (no Makefile version, "
                                "no include/config/kernel.release): give a prepared build "
                                "dir of Linux " +
                                to_string(*version));
        if (version && !same_version(*version, *build.version))
            throw BuildDirError("--build-dir " + request.build_dir + " is for Linux " +
                                to_string(*build.version) + ", the tree is Linux " +
                                to_string(*version) +
                                ": give a build dir of the tree's version, or leave "
                                "--build-dir out and ksweep prepares one with the tree's "
                                "kbuild (make O=<cache> allmodconfig modules_prepare)");
        add_sources_for(build, tree, cache_root);
        return build;
    }
    if (!version) {
        BuildDir none;
        none.missing = "not a kernel tree (no VERSION in its Makefile): parsed without kbuild";
        return none;
    }
    if (request.config_file.empty()) {
        if (std::string dir = find_build_dir(tree, *version); !dir.empty())
            return dir == tree ? found(BuildDir::Kind::TreeInPlace, dir,
                                       "the tree, prepared in place", version)
                               : found(BuildDir::Kind::InstalledHeaders, dir,
                                       "installed headers of the same version");
    }
    if (!fs::exists(fs::path(tree) / "scripts/kconfig/Makefile")) {
        // A sparse checkout: a build dir ksweep made from a full tree of this version serves.
        if (CachedBuild cached = cached_build_of_version(cache_root, tree, *version);
            !cached.dir.empty()) {
            BuildDir build =
                found(BuildDir::Kind::Made, cached.dir,
                      "made by ksweep from a full tree of the same version with " + cached.matched +
                          "; this tree has no kbuild (scripts/kconfig) of its own",
                      version);
            build.config_source = read_file(fs::path(cached.dir) / kPreparedMarker).value_or("");
            while (!build.config_source.empty() && build.config_source.back() == '\n')
                build.config_source.pop_back();
            add_sources_for(build, tree, cache_root);
            return build;
        }
        BuildDir none;
        none.missing = "no prepared build dir of Linux " + to_string(*version) +
                       ", and the tree has no kbuild (scripts/kconfig) to make one: parsed "
                       "without kbuild (give --build-dir DIR)";
        if (!has_sources(tree)) // a sparse checkout: --build-dir alone is not always enough
            none.missing = "no prepared build dir of Linux " + to_string(*version) +
                           ", and the tree has no kbuild (scripts/kconfig) and no headers of its "
                           "own (a sparse checkout?): parsed without kbuild, so constants from "
                           "headers stay unresolved. Run ksweep once on a full tree of Linux " +
                           to_string(*version) +
                           " (its build dir then serves this tree too), or give --build-dir DIR";
        return none;
    }
    const bool dirty =
        fs::exists(fs::path(tree) / ".config") || fs::exists(fs::path(tree) / "include/config");
    if (!request.may_prepare) {
        BuildDir none;
        none.missing = "no prepared build dir of Linux " + to_string(*version) +
                       " (the semantic engine is off, so none was made)";
        return none;
    }
    if (dirty)
        throw BuildDirError(
            tree +
            " has a .config but is not prepared (no include/generated/autoconf.h), and "
            "kbuild builds such a tree only in place: run `make -C " +
            tree + " modules_prepare` (this writes into the tree), or give --build-dir DIR");
    return make_build_dir(request, tree, *version);
}

namespace {

// Where a build dir's .config came from, in words that name no path of this machine.
std::string config_words(const BuildDir& build) {
    switch (build.kind) {
    case BuildDir::Kind::TreeInPlace:
        return "the tree's .config";
    case BuildDir::Kind::Given:
        return "the .config of the --build-dir";
    case BuildDir::Kind::InstalledHeaders:
        return "the config of the installed headers " + fs::path(build.dir).filename().string();
    case BuildDir::Kind::Made: {
        // config_source: "allmodconfig (ksweep's default)" or "--config /path/to/file".
        const std::string given = "--config ";
        const std::string config =
            build.config_source.starts_with(given)
                ? given + fs::path(build.config_source.substr(given.size())).filename().string()
                : build.config_source.substr(0, build.config_source.find(' '));
        return config + " (the build dir ksweep made" +
               (build.sources.empty() ? "" : " from a full tree of this version") +
               "; the tree has no .config)";
    }
    case BuildDir::Kind::None:
        break;
    }
    return "";
}

} // namespace

HzChoice choose_hz(int requested, const BuildDir& build) {
    HzChoice choice;
    if (requested > 0) {
        choice = {requested, "--hz", ""};
        choice.label = "HZ=" + std::to_string(requested) + " as given with --hz";
        return choice;
    }
    if (build.hz) {
        choice = {*build.hz, "CONFIG_HZ in " + build.dir + "/.config", ""};
        choice.label = "HZ=" + std::to_string(*build.hz) + " from " + config_words(build);
        return choice;
    }
    choice.hz = 250;
    choice.source = build.dir.empty()
                        ? "assumed: no build dir (give --hz N)"
                        : "assumed: no CONFIG_HZ in " + build.dir + "/.config (give --hz N)";
    choice.label = "HZ=250, ksweep's default (no config states HZ)";
    return choice;
}

std::string describe(const BuildDir& build, const HzChoice& hz) {
    std::string line;
    if (build.dir.empty())
        line = "no build dir: " + build.missing;
    else
        line = "build dir " + build.dir + " (" + build.origin + "; config: " + build.config_source +
               ")";
    if (build.version)
        line += ", Linux " + to_string(*build.version);
    line += ", " + (hz.label.empty() ? "HZ=" + std::to_string(hz.hz) : hz.label);
    return line;
}

} // namespace ksweep::kbuild
