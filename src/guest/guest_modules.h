// The installed kernel image's modules the validation guest loads before the out-of-tree
// ones: found through <modules_dir>/modules.dep, skipping what modules.builtin says is built in.
#pragma once

#include <string>
#include <vector>

namespace ksweep::guest {

struct ImageModules {
    std::vector<std::string> load_order; // absolute .ko/.ko.xz/.ko.zst paths, dependencies first
    std::vector<std::string> builtin;    // wanted names that are built into the kernel
};

// `wanted` are module names ("virtio_pci"; '-' and '_' are equivalent). Throws
// std::runtime_error naming the module when one is neither a module nor built in.
ImageModules resolve_image_modules(const std::string& modules_dir,
                                   const std::vector<std::string>& wanted);

// The modules the guest needs for a vhost-user-i2c-pci device under Debian's 6.1 config.
std::vector<std::string> default_guest_modules();

// The module's bytes, decompressed if it is .ko.xz / .ko.zst / .ko.gz (busybox insmod reads
// plain ELF only). Throws on failure.
std::string read_module_uncompressed(const std::string& path);

// "virtio_pci.ko.xz" -> "virtio_pci.ko": the name a module gets inside the initramfs.
std::string uncompressed_module_name(const std::string& path);

} // namespace ksweep::guest
