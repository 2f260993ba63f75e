#include "kbuild/prepared_build.h"

#include "core/cache_dir.h"
#include "core/cache_entry.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "kbuild/kbuild_make.h"
#include "kbuild/kernel_tree.h"
#include "kbuild/tree_fingerprint.h"

#include <chrono>
#include <filesystem>
#include <fstream>

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
BuildDir found(const std::string& dir, std::string origin,
               const std::optional<KernelVersion>& version = std::nullopt) {
    BuildDir b;
    b.dir = dir;
    b.origin = std::move(origin);
    b.config_source = ".config of " + dir;
    b.version = version ? version : build_dir_version(dir);
    b.hz = read_config_hz(dir);
    return b;
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

    Sha256 key_hash;
    key_hash.update("ksweep prepared build v1\n");
    key_hash.update(tree_fingerprint(tree) + "\n");
    key_hash.update(compiler_identity() + "\n");
    key_hash.update(config_text.empty() ? std::string(kDefaultConfig) : config_text);
    std::string key = fs::path(tree).filename().string() + "-" + to_string(version) + "-" +
                      to_hex(key_hash.finish()).substr(0, 16);

    fs::path root =
        fs::path(request.cache_dir.empty() ? cache_dir() : request.cache_dir) / "builds";
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
    BuildDir build = found(entry.dir.string(), "made by ksweep with the tree's kbuild", version);
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
    if (!request.build_dir.empty()) {
        if (!fs::is_directory(request.build_dir))
            throw BuildDirError("--build-dir " + request.build_dir + ": no such directory");
        BuildDir build = found(absolute(request.build_dir), "--build-dir");
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
        return build;
    }
    if (!version) {
        BuildDir none;
        none.missing = "not a kernel tree (no VERSION in its Makefile): parsed without kbuild";
        return none;
    }
    if (request.config_file.empty()) {
        if (std::string dir = find_build_dir(tree, *version); !dir.empty())
            return dir == tree ? found(dir, "the tree, prepared in place", version)
                               : found(dir, "installed headers of the same version");
    }
    if (!fs::exists(fs::path(tree) / "scripts/kconfig/Makefile")) {
        BuildDir none;
        none.missing = "no prepared build dir of Linux " + to_string(*version) +
                       ", and the tree has no kbuild (scripts/kconfig) to make one: parsed "
                       "without kbuild (give --build-dir DIR)";
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

HzChoice choose_hz(int requested, const BuildDir& build) {
    if (requested > 0)
        return {requested, "--hz"};
    if (build.hz)
        return {*build.hz, "CONFIG_HZ in " + build.dir + "/.config"};
    if (build.dir.empty())
        return {250, "assumed: no build dir (give --hz N)"};
    return {250, "assumed: no CONFIG_HZ in " + build.dir + "/.config (give --hz N)"};
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
    line += ", HZ=" + std::to_string(hz.hz) + " (" + hz.source + ")";
    return line;
}

} // namespace ksweep::kbuild
