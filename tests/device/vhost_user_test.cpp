// The back end over a socketpair, with the test playing QEMU 7.2: its message order, guest
// memory in a memfd shared as two regions (one at an mmap offset), a ring of 4, a kick, and the
// used ring read back. The device is the Nuvoton model answering the probe's ID read.
#include "device/vhost_user_backend.h"
#include "device/virtio_i2c.h"
#include "fake_vmm.h"
#include "nuvoton_driver_sim.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <thread>

namespace ksweep::device {
namespace {

using testing::FakeVmm;
using namespace vhost_user;
constexpr uint64_t kRingFile = FakeVmm::kRingFile, kUsed = FakeVmm::kUsed, kBuf = FakeVmm::kBuf;

struct VhostUserTest : ::testing::Test {
    int sock[2] = {-1, -1};
    int stop = -1;
    std::vector<std::string> log;

    ManualClock clock;
    testing::ScriptedTpm engine;
    DeviceProfile profile;
    std::unique_ptr<NuvotonTpm> tpm;
    std::unique_ptr<I2cBus> bus;
    std::unique_ptr<VirtioI2cDevice> i2c;
    std::unique_ptr<VhostUserBackend> backend;
    std::unique_ptr<FakeVmm> vmm;
    std::thread server;
    bool peer_closed = false;

    void SetUp() override {
        ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sock), 0);
        vmm = std::make_unique<FakeVmm>(sock[0]);
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
        vmm.reset();
        for (int fd : {sock[0], sock[1], stop})
            if (fd >= 0)
                close(fd);
    }
};

TEST_F(VhostUserTest, QemuSequenceThenIdReadThroughTheRing) {
    vmm->start_device();
    vmm->post_id_read();
    vmm->kick_queue();
    ASSERT_TRUE(vmm->wait_for_call()) << "the back end signals the call eventfd";

    EXPECT_EQ(vmm->get<uint16_t>(kRingFile + kUsed + 2), 2) << "both requests used";
    EXPECT_EQ(vmm->get<uint32_t>(kRingFile + kUsed + 4), 0u);
    EXPECT_EQ(vmm->get<uint32_t>(kRingFile + kUsed + 8), 1u);
    EXPECT_EQ(vmm->get<uint32_t>(kRingFile + kUsed + 12), 1u);
    EXPECT_EQ(vmm->get<uint32_t>(kRingFile + kUsed + 16), 5u);
    EXPECT_EQ(vmm->get<uint16_t>(kRingFile + kUsed + 4 + 8 * 4), 2) << "avail_event for event idx";
    EXPECT_EQ(vmm->get<uint8_t>(kRingFile + kBuf + 0x80 + 8), kVirtioI2cOk);
    EXPECT_EQ(vmm->get<uint8_t>(kRingFile + kBuf + 0xc0 + 8), kVirtioI2cOk);
    EXPECT_EQ(vmm->get<uint8_t>(kRingFile + kBuf + 0xc0), 0x50);
    EXPECT_EQ(vmm->get<uint8_t>(kRingFile + kBuf + 0xc1), 0x10);
    EXPECT_EQ(vmm->get<uint8_t>(kRingFile + kBuf + 0xc2), 0xfe);

    // Stop: the ring's next index comes back and the ring stops.
    vmm->send_value(kGetVringBase, VringState{0, 0});
    auto state = vmm->recv_reply(kGetVringBase);
    ASSERT_EQ(state.size(), sizeof(VringState));
    VringState s;
    std::memcpy(&s, state.data(), sizeof s);
    EXPECT_EQ(s.num, 2u);

    shutdown(sock[0], SHUT_RDWR);
    server.join();
    EXPECT_TRUE(peer_closed);
}

TEST_F(VhostUserTest, RequestsPostedBeforeEnableAreServedOnEnable) {
    // QEMU sends the kick fd before SET_VRING_ENABLE(1); a kick may already be pending.
    vmm->post_id_read();
    vmm->kick_queue();
    vmm->start_device();
    ASSERT_TRUE(vmm->wait_for_call());
    EXPECT_EQ(vmm->get<uint16_t>(kRingFile + kUsed + 2), 2);
}

TEST_F(VhostUserTest, RingResumesAfterMemoryTableAndAddressChange) {
    vmm->start_device();
    vmm->post_id_read();
    vmm->kick_queue();
    ASSERT_TRUE(vmm->wait_for_call());
    // QEMU may remap memory or resend ring addresses on a running ring: the back end must go on
    // from the next unprocessed entry, not from the base it was started with.
    vmm->set_mem_table();
    vmm->set_vring_addr();
    vmm->put<uint16_t>(kRingFile + FakeVmm::kAvail + 8, 0);
    vmm->put<uint16_t>(kRingFile + FakeVmm::kAvail + 10, 1);
    vmm->put<uint16_t>(kRingFile + FakeVmm::kAvail + 2, 4);
    vmm->kick_queue();
    ASSERT_TRUE(vmm->wait_for_call());
    EXPECT_EQ(vmm->get<uint16_t>(kRingFile + kUsed + 2), 4) << "entries 0 and 1 not redone";
    EXPECT_EQ(i2c->requests(), 4u);
}

TEST_F(VhostUserTest, DriverReloadStartsAFreshRing) {
    vmm->start_device();
    vmm->post_id_read();
    vmm->kick_queue();
    ASSERT_TRUE(vmm->wait_for_call());
    // rmmod: QEMU disables the ring and fetches its base; insmod: the start sequence again with
    // a ring the guest driver zeroed, from base 0.
    vmm->send_value(kSetVringEnable, VringState{0, 0});
    vmm->send_value(kGetVringBase, VringState{0, 0});
    vmm->recv_reply(kGetVringBase);
    std::memset(vmm->guest + kRingFile, 0, 0x400);
    vmm->start_device();
    vmm->post_id_read();
    vmm->kick_queue();
    ASSERT_TRUE(vmm->wait_for_call());
    EXPECT_EQ(vmm->get<uint16_t>(kRingFile + kUsed + 2), 2);
    EXPECT_EQ(vmm->get<uint8_t>(kRingFile + kBuf + 0xc0), 0x50);
    EXPECT_EQ(i2c->requests(), 4u);
}

TEST_F(VhostUserTest, BadMessagesAreRefusedAndTheConnectionSurvives) {
    vmm->send_msg(kGetProtocolFeatures, nullptr, 0);
    vmm->recv_u64(kGetProtocolFeatures);
    vmm->send_value(kSetProtocolFeatures, kProtocolFeatureReplyAck);
    vmm->send_msg(99, nullptr, 0, {}, kVersion | kFlagNeedReply);
    EXPECT_NE(vmm->recv_u64(99), 0u) << "unknown request acked as failed";
    Memory table{};
    table.nregions = 1;
    table.regions[0] = {0, 0x100000, FakeVmm::kUser0, 0}; // larger than the memfd
    vmm->send_msg(kSetMemTable, &table, 8 + 32, {vmm->memfd}, kVersion | kFlagNeedReply);
    EXPECT_NE(vmm->recv_u64(kSetMemTable), 0u) << "a region past the end of its file is refused";
    vmm->send_value(kSetVringNum, VringState{0, 3}, {}, kVersion | kFlagNeedReply);
    EXPECT_NE(vmm->recv_u64(kSetVringNum), 0u) << "queue size must be a power of two";
    vmm->send_msg(kGetFeatures, nullptr, 0);
    EXPECT_NE(vmm->recv_u64(kGetFeatures), 0u) << "still talking";
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
