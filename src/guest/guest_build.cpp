#include "guest/guest_build.h"

#include "core/cache_dir.h"
#include "core/cache_entry.h"
#include "core/data_dir.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "guest/guest_benchmark.h"
#include "guest/guest_fragment.h"
#include "guest/guest_kernel.h"
#include "kbuild/build_source.h"
#include "kbuild/kbuild_make.h"
#include "kbuild/kernel_tree.h"
#include "kbuild/tree_fingerprint.h"

#include <chrono>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

// Written last into a guest build: without it the directory is an interrupted attempt.
constexpr const char* kBuiltMarker = ".ksweep-guest-built";

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.pop_back();
    return text;
}

GuestBuild describe_build(const fs::path& dir) {
    GuestBuild build;
    build.dir = dir.string();
    build.vmlinux = (dir / "vmlinux").string();
    build.release = trimmed(read_file(dir / "include/config/kernel.release").value_or(""));
    build.hz = kbuild::read_config_hz(build.dir).value_or(0);
    return build;
}

} // namespace

std::string default_guest_fragment() {
    return data_file("qemu/guest.config");
}

GuestBuild build_guest_kernel(const GuestBuildRequest& request) {
    const std::string tree = fs::absolute(request.tree).lexically_normal().string();
    const std::string cache = request.cache_dir.empty() ? cache_dir() : request.cache_dir;
    const std::string fragment_path =
        request.fragment.empty()
            ? write_guest_fragment(default_guest_fragment(), load_registry(), cache)
            : request.fragment;
    auto fragment = read_file(fragment_path);
    if (!fragment)
        throw GuestBuildError("cannot read the guest's config fragment " + fragment_path);
    hz_fragment(request.hz); // an HZ Kconfig does not offer fails before any make
    if (!fs::exists(fs::path(tree) / "arch/x86/Makefile"))
        throw GuestBuildError(tree + " is not a whole kernel tree (no arch/x86/Makefile; a sparse "
                                     "checkout?): the guest kernel is built from a whole tree "
                                     "(validate --guest-tree DIR, guest --tree DIR)");
    auto version = kbuild::read_kernel_version(tree);
    if (!version)
        throw GuestBuildError(tree + " is not a kernel tree (no VERSION in its Makefile)");
    const auto progress = [&](const std::string& what) {
        if (request.on_progress)
            request.on_progress(what);
    };

    const fs::path cache_root = request.cache_dir.empty() ? cache_dir() : request.cache_dir;
    Sha256 key_hash;
    key_hash.update("ksweep guest kernel v1\n");
    key_hash.update(kbuild::tree_fingerprint(tree, cache_root.string()).key + "\n");
    key_hash.update(kbuild::compiler_identity() + "\n");
    key_hash.update(*fragment + "\nHZ=" + std::to_string(request.hz) + "\n");
    // By content, not the tree's path or name: a copy with the same prepare inputs (the demo's
    // hard-linked tree, a worktree or clone of the same commit) shares the build.
    const std::string key = "linux-" + kbuild::to_string(*version) + "-hz" +
                            std::to_string(request.hz) + "-" +
                            to_hex(key_hash.finish()).substr(0, 16);
    const fs::path root = cache_root / "guest-kernels";

    auto start = std::chrono::steady_clock::now();
    auto make = [&](const fs::path& dir) {
        progress("building the guest kernel from " + tree + " (Linux " +
                 kbuild::to_string(*version) + ", HZ=" + std::to_string(request.hz) + ") in " +
                 dir.string() + ": once per tree, config and HZ, then cached");
        configure_guest(tree, dir, fragment_path, request.hz, progress);
        size_t compiled = 0;
        std::vector<std::string> args{"-C", tree, "O=" + dir.string(),
                                      "-j" + std::to_string(kbuild::make_jobs())};
        for (const auto& var : guest_compiler_vars())
            args.push_back(var);
        args.insert(args.end(), {"vmlinux", "modules"});
        kbuild::MakeRun run = kbuild::run_make(
            args, tree, (dir / "build.log").string(), [&](const std::string& line) {
                if (line.rfind("  CC ", 0) == 0 && ++compiled % 100 == 0)
                    progress("guest kernel: " + std::to_string(compiled) + " files compiled, at " +
                             trimmed(line.substr(line.find_first_not_of(' ', 5))));
            });
        if (run.status != 0)
            throw GuestBuildError("building the guest kernel failed: make exited " +
                                  std::to_string(run.status) + " (log " + run.log_path + "):\n" +
                                  run.errors);
        if (!has_pvh_entry(dir / "vmlinux"))
            throw GuestBuildError((dir / "vmlinux").string() +
                                  " has no PVH entry note: QEMU cannot boot it (is CONFIG_PVH in "
                                  "the fragment?)");
    };
    CacheEntry entry;
    try {
        entry = make_cache_entry(root, key, kBuiltMarker, fragment_path + "\n", make);
    } catch (const GuestBuildError&) {
        throw;
    } catch (const std::runtime_error& e) {
        throw GuestBuildError(e.what());
    }
    kbuild::adopt_build_dir(entry.dir, tree); // the drivers' module builds read this tree
    GuestBuild build = describe_build(entry.dir);
    build.made_now = entry.made_now;
    if (entry.made_now) {
        build.make_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        progress("guest kernel " + build.release + " built in " +
                 std::to_string(static_cast<int>(build.make_seconds)) + " s");
    }
    return build;
}

} // namespace ksweep::guest
