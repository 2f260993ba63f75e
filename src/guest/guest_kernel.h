// The kernel image the validation guest boots. Debian's /boot/vmlinuz is an XZ-compressed
// bzImage: under TCG with icount its decompression alone takes ~5 s of every boot. The same
// kernel's ELF vmlinux carries a PVH entry note (CONFIG_PVH=y), and QEMU boots such an ELF
// directly, so the guest starts in about 8 s instead of 13. Same kernel, same code after entry.
#pragma once

#include <filesystem>
#include <string>

namespace ksweep::guest {

// True if `elf` is an ELF64 file with a XEN_ELFNOTE_PHYS32_ENTRY note: QEMU's -kernel boots it
// through PVH. False for anything else (a bzImage, a truncated file, no such file).
bool has_pvh_entry(const std::filesystem::path& elf);

struct GuestKernel {
    std::string image; // what to pass to QEMU's -kernel
    std::string note;  // why it is the bzImage when it is ("" when the PVH vmlinux is used)
};

// The PVH vmlinux of `vmlinuz`, extracted once into `cache_dir` with the source tree's own
// scripts/extract-vmlinux and re-extracted when vmlinuz is newer; `vmlinuz` itself (with a note)
// when that is not possible. Never throws for a missing script or a kernel without PVH.
GuestKernel guest_kernel(const std::filesystem::path& vmlinuz, const std::filesystem::path& tree,
                         const std::filesystem::path& cache_dir);

} // namespace ksweep::guest
