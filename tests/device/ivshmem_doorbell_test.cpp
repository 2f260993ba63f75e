// The ivshmem server that carries the cr50's interrupt line, over a socketpair with the test as
// QEMU: the setup QEMU 7.2's ivshmem-doorbell reads (version, ID, shared memory, vector 0), a
// pulse as one write to the vector's eventfd, and the end of the connection.
#include "device/ivshmem_doorbell.h"
#include "ivshmem_client.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ksweep::device {
namespace {

using testing::recv_ivshmem_message;

struct IvshmemDoorbellTest : ::testing::Test {
    int sock[2] = {-1, -1};
    std::vector<std::string> log, trace;
    IvshmemDoorbell doorbell{[this](const std::string& l) { log.push_back(l); }};

    void SetUp() override {
        ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sock), 0);
        doorbell.set_trace([this](const std::string& l) { trace.push_back(l); });
    }
    void TearDown() override {
        for (int fd : sock)
            close(fd);
    }
};

TEST_F(IvshmemDoorbellTest, SetupThenAPulseIsOneWriteToTheVectorsEventfd) {
    doorbell.pulse_low();
    EXPECT_EQ(doorbell.stats().delivered, 0u) << "no QEMU yet";
    doorbell.attach(sock[1]);
    auto version = recv_ivshmem_message(sock[0]);
    auto id = recv_ivshmem_message(sock[0]);
    auto memory = recv_ivshmem_message(sock[0]);
    auto vector = recv_ivshmem_message(sock[0]);
    EXPECT_EQ(version, (std::pair<int64_t, int>(0, -1)));
    EXPECT_EQ(id, (std::pair<int64_t, int>(0, -1)));
    ASSERT_EQ(memory.first, -1);
    ASSERT_GE(memory.second, 0);
    struct stat st {};
    ASSERT_EQ(fstat(memory.second, &st), 0);
    EXPECT_EQ(st.st_size, 4096) << "a power of two: it is a PCI BAR";
    ASSERT_EQ(vector.first, 0) << "the client's own ID: its interrupt setup";
    ASSERT_GE(vector.second, 0);

    doorbell.pulse_low();
    doorbell.pulse_low();
    uint64_t count = 0;
    ASSERT_EQ(read(vector.second, &count, sizeof count), 8);
    EXPECT_EQ(count, 2u) << "QEMU reads and discards as many as there are";
    EXPECT_EQ(doorbell.stats().pulses, 3u);
    EXPECT_EQ(doorbell.stats().delivered, 2u);
    ASSERT_EQ(trace.size(), 3u);
    EXPECT_EQ(trace[1], "IRQ: chip pulsed its line: MSI-X vector 0");
    close(memory.second);
    close(vector.second);
}

TEST_F(IvshmemDoorbellTest, TheConnectionsEndIsNoticedAndPulsesGoNowhere) {
    doorbell.attach(sock[1]);
    for (int i = 0; i < 4; ++i) // QEMU reads its setup before it ever goes away
        if (int fd = recv_ivshmem_message(sock[0]).second; fd >= 0)
            close(fd);
    std::vector<pollfd> fds;
    doorbell.add_poll_fds(fds);
    ASSERT_EQ(fds.size(), 1u);
    close(sock[0]);
    sock[0] = -1;
    ASSERT_EQ(poll(fds.data(), fds.size(), 1000), 1);
    EXPECT_FALSE(doorbell.handle(fds));
    doorbell.pulse_low();
    EXPECT_EQ(doorbell.stats().delivered, 0u);
    fds.clear();
    doorbell.add_poll_fds(fds);
    EXPECT_TRUE(fds.empty());
    EXPECT_TRUE(log.empty()) << log.front();
}

TEST_F(IvshmemDoorbellTest, AClientThatGoesAwayBeforeItsSetupIsLogged) {
    doorbell.attach(sock[1]);
    close(sock[0]); // the setup unread: the server's end reads a reset
    sock[0] = -1;
    std::vector<pollfd> fds;
    doorbell.add_poll_fds(fds);
    ASSERT_EQ(poll(fds.data(), fds.size(), 1000), 1);
    EXPECT_FALSE(doorbell.handle(fds));
    ASSERT_EQ(log.size(), 1u);
    EXPECT_EQ(log[0], "ivshmem: the client wrote to the server, or failed; closing");
}

} // namespace
} // namespace ksweep::device
