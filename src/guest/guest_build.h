// The validation guest's kernel, built from the tree under test: configured by configure_guest()
// (guest_config.h), then `make O=DIR -jN vmlinux modules` with the tree's own kbuild, so the
// guest boots that tree's vmlinux (PVH ELF) and the modules under test are built against the
// same build (its Module.symvers; no version or taint mismatch). The tree itself is never
// written: everything goes to O=.
//
// Built once per (tree, fragment, HZ, compiler) into <cache>/guest-kernels/<key>, keyed by the
// tree's fingerprint (kbuild/tree_fingerprint.h), the fragment's content, HZ and the compiler;
// made under a lock and trusted only once complete (core/cache_entry.h), so an interrupted or
// failed build is made again by the next run, never booted.
#pragma once

#include "guest/guest_config.h"

#include <functional>
#include <string>

namespace ksweep::guest {

struct GuestBuildRequest {
    std::string tree;
    int hz = 250;
    // default: qemu/guest.config with every device file's symbols (guest_fragment.h)
    std::string fragment;
    std::string cache_dir; // default: cache_dir()
    std::function<void(const std::string&)> on_progress = {};
};

struct GuestBuild {
    std::string dir;     // the O= build dir: what modules under test are built against
    std::string vmlinux; // what QEMU boots (-kernel), a PVH ELF
    std::string release; // include/config/kernel.release: what the guest's uname -r says
    int hz = 0;          // CONFIG_HZ of its .config
    bool made_now = false;
    double make_seconds = 0;
};

// The fragment ksweep ships (qemu/guest.config).
std::string default_guest_fragment();

// Finds or builds the guest. Throws GuestBuildError: make's error lines and the log path (a
// failed build), every fragment symbol that did not take its value, a vmlinux without a PVH
// entry, an HZ Kconfig does not offer.
GuestBuild build_guest_kernel(const GuestBuildRequest& request);

} // namespace ksweep::guest
