// A fake VMM for back-end tests: plays QEMU 7.2's side of vhost-user over a connected socket
// (its start sequence, REPLY_ACK, fds over SCM_RIGHTS) with guest memory in a memfd shared as
// two regions, the second at an mmap offset, and posts virtio-i2c requests in a ring of 4.
#pragma once

#include "device/nuvoton_tpm.h"
#include "device/vhost_user_protocol.h"
#include "device/virtio_i2c.h"
#include "device/virtqueue.h"

#include <cstring>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace ksweep::device::testing {

using namespace ksweep::device::vhost_user;

class FakeVmm {
  public:
    static constexpr size_t kMemSize = 0x10000;
    // Region 0: guest 0x0-0x4000 at file offset 0; region 1: guest 0x8000-0x14000 at 0x4000.
    static constexpr uint64_t kUser0 = 0x7f0000000000, kUser1 = 0x7f0000100000;
    static constexpr uint64_t kRingGpa = 0x8000, kRingFile = 0x4000; // rings in region 1
    static constexpr uint64_t kDesc = 0, kAvail = 0x100, kUsed = 0x200, kIndirect = 0x400,
                              kBuf = 0x800;

    // `sock` is the VMM's end of the connection; the caller keeps owning it.
    explicit FakeVmm(int sock) : sock(sock) {
        memfd = memfd_create("guest", 0);
        EXPECT_GE(memfd, 0);
        EXPECT_EQ(ftruncate(memfd, kMemSize), 0);
        void* p = mmap(nullptr, kMemSize, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        EXPECT_NE(p, MAP_FAILED);
        guest = static_cast<uint8_t*>(p);
        kick = eventfd(0, 0);
        call = eventfd(0, EFD_NONBLOCK);
    }
    ~FakeVmm() {
        munmap(guest, kMemSize);
        for (int fd : {memfd, kick, call})
            close(fd);
    }
    FakeVmm(const FakeVmm&) = delete;
    FakeVmm& operator=(const FakeVmm&) = delete;

    void kick_queue() {
        uint64_t one = 1;
        EXPECT_EQ(write(kick, &one, 8), 8);
    }

    void send_msg(uint32_t request, const void* payload, uint32_t size, std::vector<int> fds = {},
                  uint32_t flags = kVersion) {
        vhost_user::Header h{request, flags, size};
        std::vector<uint8_t> bytes(sizeof h + size);
        std::memcpy(bytes.data(), &h, sizeof h);
        if (size)
            std::memcpy(bytes.data() + sizeof h, payload, size);
        iovec iov{bytes.data(), bytes.size()};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
        if (!fds.empty()) {
            msg.msg_control = control;
            msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
            cmsghdr* c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
            std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
        }
        ASSERT_EQ(sendmsg(sock, &msg, 0), static_cast<ssize_t>(bytes.size()));
    }
    template <typename T>
    void send_value(uint32_t request, const T& v, const std::vector<int>& fds = {},
                    uint32_t flags = kVersion) {
        send_msg(request, &v, sizeof v, fds, flags);
    }

    std::vector<uint8_t> recv_reply(uint32_t request) {
        vhost_user::Header h{};
        EXPECT_EQ(recv(sock, &h, sizeof h, MSG_WAITALL), static_cast<ssize_t>(sizeof h));
        EXPECT_EQ(h.request, request);
        EXPECT_EQ(h.flags, kVersion | kFlagReply);
        std::vector<uint8_t> payload(h.size);
        if (h.size) {
            EXPECT_EQ(recv(sock, payload.data(), h.size, MSG_WAITALL),
                      static_cast<ssize_t>(h.size));
        }
        return payload;
    }
    uint64_t recv_u64(uint32_t request) {
        auto p = recv_reply(request);
        uint64_t v = 0;
        EXPECT_EQ(p.size(), 8u);
        std::memcpy(&v, p.data(), std::min<size_t>(8, p.size()));
        return v;
    }

    template <typename T> void put(uint64_t file_offset, const T& v) {
        std::memcpy(guest + file_offset, &v, sizeof v);
    }
    template <typename T> T get(uint64_t file_offset) {
        T v;
        std::memcpy(&v, guest + file_offset, sizeof v);
        return v;
    }
    void desc(uint64_t table_file, uint16_t i, uint64_t gpa, uint32_t len, uint16_t flags,
              uint16_t next) {
        put(table_file + 16 * i, gpa);
        put(table_file + 16 * i + 8, len);
        put(table_file + 16 * i + 12, flags);
        put(table_file + 16 * i + 14, next);
    }

    void set_mem_table() {
        Memory table{};
        table.nregions = 2;
        table.regions[0] = {0x0, 0x4000, kUser0, 0};
        table.regions[1] = {kRingGpa, 0xc000, kUser1, kRingFile};
        send_msg(kSetMemTable, &table, 8 + 2 * 32, {memfd, memfd}, kVersion | kFlagNeedReply);
        EXPECT_EQ(recv_u64(kSetMemTable), 0u) << "REPLY_ACK: mapped";
    }

    void set_vring_addr() {
        VringAddr addr{0, 0, kUser1 + kDesc, kUser1 + kUsed, kUser1 + kAvail, 0};
        send_value(kSetVringAddr, addr);
    }

    // QEMU 7.2's start sequence up to an enabled ring.
    void start_device() {
        send_msg(kGetFeatures, nullptr, 0);
        uint64_t features = recv_u64(kGetFeatures);
        EXPECT_TRUE(features & kFeatureProtocolFeatures) << "QEMU exits without it";
        EXPECT_TRUE(features & kVirtioI2cFZeroLengthRequest) << "the guest probe needs it";
        EXPECT_TRUE(features & kVirtioFVersion1);
        send_msg(kGetProtocolFeatures, nullptr, 0);
        uint64_t protocol = recv_u64(kGetProtocolFeatures);
        EXPECT_TRUE(protocol & kProtocolFeatureReplyAck);
        send_value(kSetProtocolFeatures, kProtocolFeatureReplyAck);
        send_msg(kSetOwner, nullptr, 0);
        send_value(kSetVringCall, uint64_t{0}, {call});
        send_value(kSetFeatures, features);

        set_mem_table();

        send_value(kSetVringNum, VringState{0, 4});
        send_value(kSetVringBase, VringState{0, 0});
        set_vring_addr();
        send_value(kSetVringKick, uint64_t{0}, {kick});
        send_value(kSetVringEnable, VringState{0, 1}, {}, kVersion | kFlagNeedReply);
        EXPECT_EQ(recv_u64(kSetVringEnable), 0u);
    }

    // The driver's ID read: write [0x60] (FAIL_NEXT), read 4 bytes; each as an indirect table.
    // [reg] then a 4-byte read at `address` (default: the Nuvoton's id register).
    void post_id_read(uint16_t address = nuvoton::kDefaultAddress,
                      uint8_t reg = nuvoton::kRegVidDidRid) {
        uint64_t h0 = kBuf, h1 = kBuf + 0x40, data0 = kBuf + 0x80, data1 = kBuf + 0xc0;
        put<uint16_t>(kRingFile + h0, static_cast<uint16_t>(address << 1));
        put<uint32_t>(kRingFile + h0 + 4, kVirtioI2cFlagFailNext);
        put<uint8_t>(kRingFile + data0, reg);
        put<uint16_t>(kRingFile + h1, static_cast<uint16_t>(address << 1));
        put<uint32_t>(kRingFile + h1 + 4, kVirtioI2cFlagRead);
        uint64_t t0 = kRingFile + kIndirect, t1 = t0 + 0x40;
        desc(t0, 0, kRingGpa + h0, 8, kDescNext, 1);
        desc(t0, 1, kRingGpa + data0, 1, kDescNext, 2);
        desc(t0, 2, kRingGpa + data0 + 8, 1, kDescWrite, 0);
        desc(t1, 0, kRingGpa + h1, 8, kDescNext, 1);
        desc(t1, 1, kRingGpa + data1, 4, kDescNext | kDescWrite, 2);
        desc(t1, 2, kRingGpa + data1 + 8, 1, kDescWrite, 0);
        desc(kRingFile + kDesc, 0, kRingGpa + kIndirect, 48, kDescIndirect, 0);
        desc(kRingFile + kDesc, 1, kRingGpa + kIndirect + 0x40, 48, kDescIndirect, 0);
        put<uint8_t>(kRingFile + data0 + 8, 0xee);
        put<uint8_t>(kRingFile + data1 + 8, 0xee);
        put<uint16_t>(kRingFile + kAvail + 4, 0);
        put<uint16_t>(kRingFile + kAvail + 6, 1);
        put<uint16_t>(kRingFile + kAvail + 2, 2);
    }

    bool wait_for_call() {
        pollfd p{call, POLLIN, 0};
        if (poll(&p, 1, 5000) != 1)
            return false;
        uint64_t n;
        return read(call, &n, 8) == 8;
    }

    int sock;
    int memfd = -1, kick = -1, call = -1;
    uint8_t* guest = nullptr;
};

} // namespace ksweep::device::testing
