// The vhost-user wire format (QEMU docs/interop/vhost-user.rst) for the messages a one-queue
// device back end answers. All fields are in host byte order; file descriptors travel as
// SCM_RIGHTS ancillary data with the message header.
#pragma once

#include <cstdint>

namespace ksweep::device::vhost_user {

enum Request : uint32_t {
    kGetFeatures = 1,
    kSetFeatures = 2,
    kSetOwner = 3,
    kResetOwner = 4,
    kSetMemTable = 5,
    kSetVringNum = 8,
    kSetVringAddr = 9,
    kSetVringBase = 10,
    kGetVringBase = 11,
    kSetVringKick = 12,
    kSetVringCall = 13,
    kSetVringErr = 14,
    kGetProtocolFeatures = 15,
    kSetProtocolFeatures = 16,
    kGetQueueNum = 17,
    kSetVringEnable = 18,
};

inline constexpr uint32_t kVersion = 0x1;
inline constexpr uint32_t kFlagReply = 1u << 2;
inline constexpr uint32_t kFlagNeedReply = 1u << 3;

inline constexpr uint64_t kFeatureProtocolFeatures = 1ull << 30;
inline constexpr uint64_t kProtocolFeatureReplyAck = 1ull << 3;

// Virtio transport features every back end here offers.
inline constexpr uint64_t kVirtioFVersion1 = 1ull << 32;
inline constexpr uint64_t kVirtioRingFIndirectDesc = 1ull << 28;
inline constexpr uint64_t kVirtioRingFEventIdx = 1ull << 29;

// SET_VRING_KICK/CALL/ERR payload: queue index in bits 0-7, no fd attached if bit 8 is set.
inline constexpr uint64_t kVringIndexMask = 0xff;
inline constexpr uint64_t kVringNoFd = 1ull << 8;

inline constexpr unsigned kMaxMemoryRegions = 8;
inline constexpr unsigned kMaxFds = 8;

struct Header {
    uint32_t request;
    uint32_t flags;
    uint32_t size;
};

struct VringState {
    uint32_t index;
    uint32_t num;
};

struct VringAddr {
    uint32_t index;
    uint32_t flags;
    uint64_t desc_user_addr;
    uint64_t used_user_addr;
    uint64_t avail_user_addr;
    uint64_t log_guest_addr;
};

struct MemoryRegionDesc {
    uint64_t guest_phys_addr;
    uint64_t memory_size;
    uint64_t userspace_addr;
    uint64_t mmap_offset;
};

struct Memory {
    uint32_t nregions;
    uint32_t padding;
    MemoryRegionDesc regions[kMaxMemoryRegions];
};

static_assert(sizeof(Header) == 12);
static_assert(sizeof(VringAddr) == 40);
static_assert(sizeof(Memory) == 8 + 32 * kMaxMemoryRegions);

} // namespace ksweep::device::vhost_user
