// A fake guest for virtqueue tests: a block of "guest RAM" at a guest physical base, a VMM user
// address different from it (as in QEMU), and helpers to lay out descriptors, rings and the
// virtio-i2c headers the Linux driver would post.
#pragma once

#include "device/virtqueue.h"

#include <cstring>
#include <vector>

namespace ksweep::device::testing {

struct GuestRam {
    static constexpr uint64_t kBase = 0x100000;           // guest physical
    static constexpr uint64_t kUserBase = 0x7f0000000000; // where the VMM maps it
    static constexpr uint16_t kQueueSize = 4;
    // Layout inside RAM (offsets): rings first, then an area for buffers.
    static constexpr uint64_t kDesc = 0x0, kAvail = 0x100, kUsed = 0x200, kData = 0x1000;

    explicit GuestRam(uint8_t* host, size_t size) : host(host), size(size) {}

    GuestMemory memory() const { return GuestMemory({{kBase, size, kUserBase, host}}); }
    RingAddresses rings() const {
        return {kUserBase + kDesc, kUserBase + kAvail, kUserBase + kUsed};
    }
    std::span<const uint8_t> table() const { return {host + kDesc, kQueueSize * kDescSize}; }

    template <typename T> void put(uint64_t offset, const T& value) {
        std::memcpy(host + offset, &value, sizeof value);
    }
    template <typename T> T get(uint64_t offset) const {
        T v;
        std::memcpy(&v, host + offset, sizeof v);
        return v;
    }
    // Writes descriptor `i` of the table at `table_offset` (a guest physical address for addr).
    void desc(uint64_t table_offset, uint16_t i, uint64_t addr, uint32_t len, uint16_t flags,
              uint16_t next = 0) {
        uint64_t at = table_offset + 16 * i;
        put(at, addr);
        put(at + 8, len);
        put(at + 12, flags);
        put(at + 14, next);
    }
    // Posts `head` in the avail ring and bumps its index.
    void post(uint16_t head) {
        uint16_t idx = get<uint16_t>(kAvail + 2);
        put<uint16_t>(kAvail + 4 + 2 * (idx % kQueueSize), head);
        put<uint16_t>(kAvail + 2, idx + 1);
    }
    uint16_t used_idx() const { return get<uint16_t>(kUsed + 2); }
    uint32_t used_len(uint16_t slot) const { return get<uint32_t>(kUsed + 4 + 8 * slot + 4); }
    uint32_t used_id(uint16_t slot) const { return get<uint32_t>(kUsed + 4 + 8 * slot); }
    uint16_t avail_event() const { return get<uint16_t>(kUsed + 4 + 8 * kQueueSize); }

    // The three buffers of a virtio-i2c request, as the Linux driver lays them out, at offset
    // `at`: out header, the message buffer (len bytes), status byte. Returns the guest
    // addresses of {header, buffer, status}.
    struct Request {
        uint64_t header, buffer, status;
    };
    Request i2c_request(uint64_t at, uint16_t addr7, uint32_t flags,
                        const std::vector<uint8_t>& write_data, uint32_t len) {
        put<uint16_t>(at, addr7 << 1);
        put<uint16_t>(at + 2, 0);
        put<uint32_t>(at + 4, flags);
        if (!write_data.empty())
            std::memcpy(host + at + 16, write_data.data(), write_data.size());
        put<uint8_t>(at + 16 + len, 0xee); // poison: the device must overwrite it
        return {kBase + at, kBase + at + 16, kBase + at + 16 + len};
    }

    uint8_t* host;
    size_t size;
};

} // namespace ksweep::device::testing
