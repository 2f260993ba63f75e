#include "device/virtqueue.h"

#include <atomic>
#include <bit>
#include <cstring>

namespace ksweep::device {

static_assert(std::endian::native == std::endian::little,
              "virtio 1.x rings are little-endian; this back end reads them natively");

namespace {

struct Descriptor {
    uint64_t addr;
    uint32_t len;
    uint16_t flags;
    uint16_t next;
};

// Copies descriptor `index` out of a table so the guest cannot change it while it is checked.
Descriptor load_descriptor(std::span<const uint8_t> table, size_t index) {
    Descriptor d;
    const uint8_t* p = table.data() + index * kDescSize;
    std::memcpy(&d.addr, p, 8);
    std::memcpy(&d.len, p + 8, 4);
    std::memcpy(&d.flags, p + 12, 2);
    std::memcpy(&d.next, p + 14, 2);
    return d;
}

bool in_region(const MemoryRegion& r, uint64_t start, uint64_t base, uint64_t len) {
    // Written to avoid overflow: start - base is only computed once start >= base.
    return start >= base && start - base <= r.size && len <= r.size - (start - base);
}

// Appends one descriptor as a segment, enforcing readable-before-writable order.
std::string add_segment(ChainResult& out, const Descriptor& d, const GuestMemory& memory) {
    bool writable = (d.flags & kDescWrite) != 0;
    if (!writable && !out.segments.empty() && out.segments.back().device_writable)
        return "a driver-readable descriptor follows a device-writable one";
    if (!memory.translate(d.addr, d.len))
        return "descriptor buffer outside guest memory";
    out.segments.push_back({d.addr, d.len, writable});
    return {};
}

std::string walk_indirect(ChainResult& out, const Descriptor& d, const GuestMemory& memory) {
    if (d.flags & kDescNext)
        return "indirect descriptor with NEXT set";
    if (d.len == 0 || d.len % kDescSize != 0)
        return "indirect table length is not a positive multiple of 16";
    uint32_t count = d.len / kDescSize;
    if (count > kMaxIndirectDescriptors)
        return "indirect table too long";
    auto table = memory.translate(d.addr, d.len);
    if (!table)
        return "indirect table outside guest memory";
    // Copy the table: the guest may rewrite it while we walk it.
    std::vector<uint8_t> copy(table->begin(), table->end());
    uint32_t index = 0;
    for (uint32_t steps = 0; steps < count; ++steps) {
        Descriptor e = load_descriptor(copy, index);
        if (e.flags & kDescIndirect)
            return "nested indirect descriptor";
        if (auto err = add_segment(out, e, memory); !err.empty())
            return err;
        if (!(e.flags & kDescNext))
            return {};
        if (e.next >= count)
            return "indirect NEXT index out of range";
        index = e.next;
    }
    return "indirect chain loops";
}

} // namespace

std::optional<std::span<uint8_t>> GuestMemory::translate(uint64_t guest_phys, uint64_t len) const {
    for (const auto& r : regions_)
        if (in_region(r, guest_phys, r.guest_phys, len))
            return std::span<uint8_t>(r.host + (guest_phys - r.guest_phys), len);
    return std::nullopt;
}

std::optional<std::span<uint8_t>> GuestMemory::translate_user(uint64_t user_addr,
                                                              uint64_t len) const {
    for (const auto& r : regions_)
        if (in_region(r, user_addr, r.user_addr, len))
            return std::span<uint8_t>(r.host + (user_addr - r.user_addr), len);
    return std::nullopt;
}

ChainResult read_descriptor_chain(std::span<const uint8_t> table, uint16_t head,
                                  const GuestMemory& memory) {
    ChainResult out;
    size_t queue_size = table.size() / kDescSize;
    if (head >= queue_size) {
        out.error = "head index out of range";
        return out;
    }
    uint16_t index = head;
    // A chain visits each descriptor at most once, so queue_size steps bound any loop.
    for (size_t steps = 0; steps < queue_size; ++steps) {
        Descriptor d = load_descriptor(table, index);
        if (d.flags & kDescIndirect) {
            if (!out.segments.empty())
                out.error = "indirect descriptor inside a chain";
            else
                out.error = walk_indirect(out, d, memory);
            return out;
        }
        if (out.error = add_segment(out, d, memory); !out.ok())
            return out;
        if (!(d.flags & kDescNext))
            return out;
        if (d.next >= queue_size) {
            out.error = "NEXT index out of range";
            return out;
        }
        index = d.next;
    }
    out.error = "descriptor chain loops";
    return out;
}

namespace {

uint16_t load_u16(std::span<uint8_t> ring, size_t offset) {
    return std::atomic_ref<uint16_t>(*reinterpret_cast<uint16_t*>(ring.data() + offset))
        .load(std::memory_order_acquire);
}

void store_u16(std::span<uint8_t> ring, size_t offset, uint16_t value) {
    std::atomic_ref<uint16_t>(*reinterpret_cast<uint16_t*>(ring.data() + offset))
        .store(value, std::memory_order_release);
}

} // namespace

bool SplitVirtqueue::attach(const GuestMemory& memory, const RingAddresses& rings, uint16_t size,
                            uint16_t next_avail) {
    attached_ = false;
    if (size == 0 || (size & (size - 1)) != 0) {
        error_ = "queue size is not a power of two";
        return false;
    }
    // Alignment the spec requires (2.7): it also keeps the atomic 16-bit accesses aligned.
    if (rings.desc % 16 || rings.avail % 2 || rings.used % 4) {
        error_ = "ring address misaligned";
        return false;
    }
    auto desc = memory.translate_user(rings.desc, uint64_t{size} * kDescSize);
    auto avail = memory.translate_user(rings.avail, 6 + 2 * uint64_t{size});
    auto used = memory.translate_user(rings.used, 6 + 8 * uint64_t{size});
    if (!desc || !avail || !used) {
        error_ = "ring outside guest memory";
        return false;
    }
    desc_ = *desc;
    avail_ = *avail;
    used_ = *used;
    size_ = size;
    next_avail_ = next_avail;
    next_used_ = load_u16(used_, 2);
    error_.clear();
    attached_ = true;
    return true;
}

uint16_t SplitVirtqueue::avail_idx() const {
    return load_u16(avail_, 2);
}

std::optional<uint16_t> SplitVirtqueue::pop() {
    if (!attached_)
        return std::nullopt;
    uint16_t idx = avail_idx();
    if (idx == next_avail_)
        return std::nullopt;
    if (uint16_t(idx - next_avail_) > size_) {
        error_ = "driver posted more entries than the queue holds";
        attached_ = false;
        return std::nullopt;
    }
    uint16_t head = load_u16(avail_, 4 + 2 * size_t(next_avail_ % size_));
    ++next_avail_;
    return head; // the caller validates it against the table with read_descriptor_chain
}

void SplitVirtqueue::push(uint16_t head, uint32_t written) {
    if (!attached_)
        return;
    uint8_t* elem = used_.data() + 4 + 8 * size_t(next_used_ % size_);
    uint32_t id = head;
    std::memcpy(elem, &id, 4);
    std::memcpy(elem + 4, &written, 4);
    ++next_used_;
    store_u16(used_, 2, next_used_); // release: the element is visible before the index
}

bool SplitVirtqueue::arm_notifications() {
    if (!attached_)
        return false;
    store_u16(used_, 4 + 8 * size_t(size_), next_avail_);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return avail_idx() != next_avail_;
}

} // namespace ksweep::device
