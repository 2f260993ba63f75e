// The kernel image the validation guest boots is the ELF vmlinux of its build (guest_build.h),
// not a compressed bzImage: QEMU boots an ELF with a PVH entry note (CONFIG_PVH=y) directly, and
// under TCG with icount a bzImage's decompression alone takes seconds of every boot.
#pragma once

#include <filesystem>
#include <string>

namespace ksweep::guest {

// True if `elf` is an ELF64 file with a XEN_ELFNOTE_PHYS32_ENTRY note: QEMU's -kernel boots it
// through PVH. False for anything else (a bzImage, a truncated file, no such file).
bool has_pvh_entry(const std::filesystem::path& elf);

} // namespace ksweep::guest
