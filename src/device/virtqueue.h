// Split virtqueues (virtio 1.x, section 2.7) as a vhost-user back end sees them: guest memory
// reached through a table of regions, descriptor chains (direct and indirect) turned into
// bounds-checked segments, and the used ring written back with the event-idx field.
//
// Everything the guest controls is treated as hostile: each descriptor is copied once before it
// is looked at, every address is translated with its length, and loops are bounded by the queue
// size, so a broken or malicious ring yields an error string, never an out-of-bounds access.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

// One contiguous piece of guest RAM mapped into this process.
struct MemoryRegion {
    uint64_t guest_phys = 0; // guest physical address of the first byte
    uint64_t size = 0;
    uint64_t user_addr = 0;  // the address the VMM (QEMU) uses for it; ring addresses use these
    uint8_t* host = nullptr; // where it is mapped here
};

// A non-owning view of guest memory. Translations succeed only when the whole range lies in a
// single region.
class GuestMemory {
  public:
    GuestMemory() = default;
    explicit GuestMemory(std::vector<MemoryRegion> regions) : regions_(std::move(regions)) {}

    std::optional<std::span<uint8_t>> translate(uint64_t guest_phys, uint64_t len) const;
    std::optional<std::span<uint8_t>> translate_user(uint64_t user_addr, uint64_t len) const;
    bool empty() const { return regions_.empty(); }

  private:
    std::vector<MemoryRegion> regions_;
};

// Descriptor flags (virtio 1.x 2.7.5).
inline constexpr uint16_t kDescNext = 1;
inline constexpr uint16_t kDescWrite = 2;
inline constexpr uint16_t kDescIndirect = 4;
inline constexpr size_t kDescSize = 16; // le64 addr, le32 len, le16 flags, le16 next

// Longest chain accepted from an indirect table; generous for any I2C request.
inline constexpr uint32_t kMaxIndirectDescriptors = 256;

// One buffer of a request, already checked to lie inside guest memory.
struct Segment {
    uint64_t guest_phys = 0;
    uint32_t len = 0;
    bool device_writable = false;
};

struct ChainResult {
    std::vector<Segment> segments; // driver-readable first, then device-writable
    std::string error;             // empty when the chain is usable
    bool ok() const { return error.empty(); }
};

// Walks the chain that starts at `head` in `table` (the queue's descriptor table, queue_size
// entries of 16 bytes), following NEXT links and at most one indirect table. Pure: it reads
// guest memory through `memory` and never writes.
ChainResult read_descriptor_chain(std::span<const uint8_t> table, uint16_t head,
                                  const GuestMemory& memory);

// The ring addresses of a queue as the VMM gives them (its user addresses).
struct RingAddresses {
    uint64_t desc = 0;
    uint64_t avail = 0;
    uint64_t used = 0;
};

// A split virtqueue being served: pops available heads, pushes used elements.
class SplitVirtqueue {
  public:
    // Resolves the ring addresses against `memory`; false (with error()) if they do not fit.
    bool attach(const GuestMemory& memory, const RingAddresses& rings, uint16_t size,
                uint16_t next_avail);
    void detach() { attached_ = false; }
    bool attached() const { return attached_; }

    // The next available head, or nullopt when the driver has posted nothing new. A corrupt
    // avail ring (index out of range, more entries than the queue holds) sets error() and
    // detaches.
    std::optional<uint16_t> pop();
    // Returns a head to the driver with the number of bytes written into its buffers.
    void push(uint16_t head, uint32_t written);
    // Publishes avail_event = next avail index (event idx) so the driver kicks for the next
    // request; returns true if more requests arrived meanwhile and must be processed.
    bool arm_notifications();

    std::span<const uint8_t> descriptor_table() const { return desc_; }
    uint16_t next_avail() const { return next_avail_; }
    uint16_t size() const { return size_; }
    const std::string& error() const { return error_; }

  private:
    uint16_t avail_idx() const;

    bool attached_ = false;
    uint16_t size_ = 0;
    uint16_t next_avail_ = 0;
    uint16_t next_used_ = 0;
    std::span<uint8_t> desc_;
    std::span<uint8_t> avail_; // flags, idx, ring[size], used_event
    std::span<uint8_t> used_;  // flags, idx, ring[size] of {id, len}, avail_event
    std::string error_;
};

} // namespace ksweep::device
