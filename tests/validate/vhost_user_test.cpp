// The back end over a socketpair, with the test playing QEMU 7.2: its message order, guest
// memory in a memfd shared as two regions (one at an mmap offset), a ring of 4, a kick, and the
// used ring read back. The device is the Nuvoton model answering the probe's ID read.
#include "nuvoton_driver_sim.h"

#include "validate/vhost_user_backend.h"
#include "validate/virtio_i2c.h"

#include <cstring>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace ksweep::device {
namespace {

using namespace vhost_user;

constexpr size_t kMemSize = 0x10000;
// Region 0: guest 0x0-0x4000 at file offset 0; region 1: guest 0x8000-0x14000 at offset 0x4000.
constexpr uint64_t kUser0 = 0x7f0000000000, kUser1 = 0x7f0000100000;
constexpr uint64_t kRingGpa = 0x8000, kRingFile = 0x4000; // ring memory in region 1
constexpr uint64_t kDesc = 0, kAvail = 0x100, kUsed = 0x200, kIndirect = 0x400, kBuf = 0x800;

struct VhostUserTest : ::testing::Test {
    int sock[2] = {-1, -1};
    int memfd = -1, kick = -1, call = -1, stop = -1;
    uint8_t* guest = nullptr;
    std::vector<std::string> log;

    ManualClock clock;
    testing::ScriptedTpm engine;
    DeviceProfile profile;
    std::unique_ptr<NuvotonTpm> tpm;
    std::unique_ptr<I2cBus> bus;
    std::unique_ptr<VirtioI2cDevice> i2c;
    std::unique_ptr<VhostUserBackend> backend;
    std::thread server;
    bool peer_closed = false;

    void SetUp() override {
        ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sock), 0);
        memfd = memfd_create("guest", 0);
        ASSERT_GE(memfd, 0);
        ASSERT_EQ(ftruncate(memfd, kMemSize), 0);
        guest = static_cast<uint8_t*>(
            mmap(nullptr, kMemSize, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0));
        ASSERT_NE(guest, MAP_FAILED);
        kick = eventfd(0, 0);
        call = eventfd(0, EFD_NONBLOCK);
        stop = eventfd(0, 0);
        auto logf = [this](const std::string& l) { log.push_back(l); };
        tpm = std::make_unique<NuvotonTpm>(clock, engine, profile, logf);
        bus = std::make_unique<I2cBus>(clock);
        bus->attach(nuvoton::kDefaultAddress, *tpm);
        i2c = std::make_unique<VirtioI2cDevice>(*bus, logf);
        backend = std::make_unique<VhostUserBackend>(
            kVirtioI2cFZeroLengthRequest,
            [this](std::span<const uint8_t> t, uint16_t h, const GuestMemory& m) {
                return i2c->handle(t, h, m);
            },
            logf);
        server = std::thread([this] { peer_closed = backend->serve(sock[1], stop); });
    }

    void TearDown() override {
        if (server.joinable()) {
            uint64_t one = 1;
            ASSERT_EQ(write(stop, &one, 8), 8);
            server.join();
        }
        for (int fd : {sock[0], sock[1], memfd, kick, call, stop})
            if (fd >= 0)
                close(fd);
        munmap(guest, kMemSize);
    }

    void send_msg(uint32_t request, const void* payload, uint32_t size,
                  std::vector<int> fds = {}, uint32_t flags = kVersion) {
        Header h{request, flags, size};
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
        ASSERT_EQ(sendmsg(sock[0], &msg, 0), static_cast<ssize_t>(bytes.size()));
    }
    template <typename T> void send_value(uint32_t request, const T& v, std::vector<int> fds = {},
                                          uint32_t flags = kVersion) {
        send_msg(request, &v, sizeof v, std::move(fds), flags);
    }

    std::vector<uint8_t> recv_reply(uint32_t request) {
        Header h{};
        EXPECT_EQ(recv(sock[0], &h, sizeof h, MSG_WAITALL), static_cast<ssize_t>(sizeof h));
        EXPECT_EQ(h.request, request);
        EXPECT_EQ(h.flags, kVersion | kFlagReply);
        std::vector<uint8_t> payload(h.size);
        if (h.size) {
            EXPECT_EQ(recv(sock[0], payload.data(), h.size, MSG_WAITALL),
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

        Memory table{};
        table.nregions = 2;
        table.regions[0] = {0x0, 0x4000, kUser0, 0};
        table.regions[1] = {kRingGpa, 0xc000, kUser1, kRingFile};
        send_msg(kSetMemTable, &table, 8 + 2 * 32, {memfd, memfd}, kVersion | kFlagNeedReply);
        EXPECT_EQ(recv_u64(kSetMemTable), 0u) << "REPLY_ACK: mapped";

        send_value(kSetVringNum, VringState{0, 4});
        send_value(kSetVringBase, VringState{0, 0});
        VringAddr addr{0, 0, kUser1 + kDesc, kUser1 + kUsed, kUser1 + kAvail, 0};
        send_value(kSetVringAddr, addr);
        send_value(kSetVringKick, uint64_t{0}, {kick});
        send_value(kSetVringEnable, VringState{0, 1}, {}, kVersion | kFlagNeedReply);
        EXPECT_EQ(recv_u64(kSetVringEnable), 0u);
    }

    // The driver's ID read: write [0x60] (FAIL_NEXT), read 4 bytes; each as an indirect table.
    void post_id_read() {
        uint64_t h0 = kBuf, h1 = kBuf + 0x40, data0 = kBuf + 0x80, data1 = kBuf + 0xc0;
        put<uint16_t>(kRingFile + h0, nuvoton::kDefaultAddress << 1);
        put<uint32_t>(kRingFile + h0 + 4, kVirtioI2cFlagFailNext);
        put<uint8_t>(kRingFile + data0, nuvoton::kRegVidDidRid);
        put<uint16_t>(kRingFile + h1, nuvoton::kDefaultAddress << 1);
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
};

TEST_F(VhostUserTest, QemuSequenceThenIdReadThroughTheRing) {
    start_device();
    post_id_read();
    uint64_t one = 1;
    ASSERT_EQ(write(kick, &one, 8), 8);
    ASSERT_TRUE(wait_for_call()) << "the back end signals the call eventfd";

    EXPECT_EQ(get<uint16_t>(kRingFile + kUsed + 2), 2) << "both requests used";
    EXPECT_EQ(get<uint32_t>(kRingFile + kUsed + 4), 0u);
    EXPECT_EQ(get<uint32_t>(kRingFile + kUsed + 8), 1u);
    EXPECT_EQ(get<uint32_t>(kRingFile + kUsed + 12), 1u);
    EXPECT_EQ(get<uint32_t>(kRingFile + kUsed + 16), 5u);
    EXPECT_EQ(get<uint16_t>(kRingFile + kUsed + 4 + 8 * 4), 2) << "avail_event for event idx";
    EXPECT_EQ(get<uint8_t>(kRingFile + kBuf + 0x80 + 8), kVirtioI2cOk);
    EXPECT_EQ(get<uint8_t>(kRingFile + kBuf + 0xc0 + 8), kVirtioI2cOk);
    EXPECT_EQ(get<uint8_t>(kRingFile + kBuf + 0xc0), 0x50);
    EXPECT_EQ(get<uint8_t>(kRingFile + kBuf + 0xc1), 0x10);
    EXPECT_EQ(get<uint8_t>(kRingFile + kBuf + 0xc2), 0xfe);

    // Stop: the ring's next index comes back and the ring stops.
    send_value(kGetVringBase, VringState{0, 0});
    auto state = recv_reply(kGetVringBase);
    ASSERT_EQ(state.size(), sizeof(VringState));
    VringState s;
    std::memcpy(&s, state.data(), sizeof s);
    EXPECT_EQ(s.num, 2u);

    close(sock[0]);
    sock[0] = -1;
    server.join();
    EXPECT_TRUE(peer_closed);
}

TEST_F(VhostUserTest, RequestsPostedBeforeEnableAreServedOnEnable) {
    // QEMU sends the kick fd before SET_VRING_ENABLE(1); a kick may already be pending.
    post_id_read();
    uint64_t one = 1;
    ASSERT_EQ(write(kick, &one, 8), 8);
    start_device();
    ASSERT_TRUE(wait_for_call());
    EXPECT_EQ(get<uint16_t>(kRingFile + kUsed + 2), 2);
}

TEST_F(VhostUserTest, BadMessagesAreRefusedAndTheConnectionSurvives) {
    send_msg(kGetProtocolFeatures, nullptr, 0);
    recv_u64(kGetProtocolFeatures);
    send_value(kSetProtocolFeatures, kProtocolFeatureReplyAck);
    send_msg(99, nullptr, 0, {}, kVersion | kFlagNeedReply);
    EXPECT_NE(recv_u64(99), 0u) << "unknown request acked as failed";
    Memory table{};
    table.nregions = 1;
    table.regions[0] = {0, 0x100000, kUser0, 0}; // larger than the memfd
    send_msg(kSetMemTable, &table, 8 + 32, {memfd}, kVersion | kFlagNeedReply);
    EXPECT_NE(recv_u64(kSetMemTable), 0u) << "a region past the end of its file is refused";
    send_value(kSetVringNum, VringState{0, 3}, {}, kVersion | kFlagNeedReply);
    EXPECT_NE(recv_u64(kSetVringNum), 0u) << "queue size must be a power of two";
    send_msg(kGetFeatures, nullptr, 0);
    EXPECT_NE(recv_u64(kGetFeatures), 0u) << "still talking";
}

TEST_F(VhostUserTest, OversizedPayloadDropsTheConnection) {
    Header h{kSetFeatures, kVersion, 1u << 20};
    ASSERT_EQ(send(sock[0], &h, sizeof h, 0), static_cast<ssize_t>(sizeof h));
    server.join();
    EXPECT_TRUE(peer_closed);
    EXPECT_FALSE(log.empty());
}

} // namespace
} // namespace ksweep::device
