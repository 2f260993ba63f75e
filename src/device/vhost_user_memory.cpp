#include "device/vhost_user_memory.h"

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <sys/stat.h>

namespace ksweep::device {

void VhostUserMemory::unmap() {
    for (const auto& m : mappings_)
        munmap(m.base, m.length);
    mappings_.clear();
    view_ = GuestMemory();
}

bool VhostUserMemory::map(const vhost_user::Memory& table, std::span<const int> fds) {
    unmap();
    if (table.nregions == 0 || table.nregions > vhost_user::kMaxMemoryRegions) {
        error_ = "memory table with " + std::to_string(table.nregions) + " regions";
        return false;
    }
    if (fds.size() != table.nregions) {
        error_ = "memory table has " + std::to_string(table.nregions) + " regions but " +
                 std::to_string(fds.size()) + " fds";
        return false;
    }
    std::vector<MemoryRegion> regions;
    for (uint32_t i = 0; i < table.nregions; ++i) {
        const auto& r = table.regions[i];
        // QEMU may map one fd at an offset (e.g. RAM above the 0xa0000 hole): map the offset
        // too and point past it, since mmap offsets must be page aligned and this one need not.
        uint64_t length = r.memory_size + r.mmap_offset;
        if (r.memory_size == 0 || length < r.memory_size ||
            r.guest_phys_addr + r.memory_size < r.guest_phys_addr ||
            r.userspace_addr + r.memory_size < r.userspace_addr) {
            error_ = "memory region " + std::to_string(i) + " has an invalid size or offset";
            unmap();
            return false;
        }
        // A mapping past the end of the file would raise SIGBUS on first touch.
        struct stat st;
        if (fstat(fds[i], &st) != 0 || (S_ISREG(st.st_mode) && uint64_t(st.st_size) < length)) {
            error_ = "memory region " + std::to_string(i) + " is larger than its file";
            unmap();
            return false;
        }
        void* base = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fds[i], 0);
        if (base == MAP_FAILED) {
            error_ =
                "mmap of memory region " + std::to_string(i) + " failed: " + std::strerror(errno);
            unmap();
            return false;
        }
        mappings_.push_back({base, length});
        regions.push_back({r.guest_phys_addr, r.memory_size, r.userspace_addr,
                           static_cast<uint8_t*>(base) + r.mmap_offset});
    }
    view_ = GuestMemory(std::move(regions));
    error_.clear();
    return true;
}

} // namespace ksweep::device
