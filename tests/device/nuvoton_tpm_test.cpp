// The Nuvoton model against the driver's register-level sequences (probe, send, receive,
// retry, cancel), its latencies and its timing requirements, with a manual clock.
#include "device/device_profile.h"
#include "device/nuvoton_tpm.h"
#include "nuvoton_driver_sim.h"

#include <gtest/gtest.h>

namespace ksweep::device {
namespace {

using namespace testing;
using namespace nuvoton;

// TPM2_GetRandom(8): tag, size 12, code 0x17b, bytesRequested.
const std::vector<uint8_t> kGetRandom = {0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x7b, 0, 8};

DeviceProfile make_profile() {
    DeviceProfile p;
    p.name = "test";
    p.default_command_time = 1ms;
    p.command_time[0x17b] = 3ms;
    p.burst_count = 32;
    return p;
}

struct NuvotonTest : ::testing::Test {
    ManualClock clock;
    ScriptedTpm engine;
    DeviceProfile profile = make_profile();
    std::vector<std::string> log;
    std::unique_ptr<I2cBus> bus;
    std::unique_ptr<NuvotonTpm> tpm;
    std::unique_ptr<NuvotonDriverSim> driver;

    void SetUp() override { start(); }
    // (Re)builds the chip after a test changed the profile.
    void start() {
        tpm = std::make_unique<NuvotonTpm>(clock, engine, profile,
                                           [this](const std::string& l) { log.push_back(l); });
        bus = std::make_unique<I2cBus>(clock);
        ASSERT_TRUE(bus->attach(kDefaultAddress, *tpm));
        driver = std::make_unique<NuvotonDriverSim>(*bus, clock);
    }
};

TEST_F(NuvotonTest, ProbeReadsVendorDeviceId) {
    auto id = driver->read_block(kRegVidDidRid, 4);
    ASSERT_TRUE(id);
    EXPECT_EQ((*id)[0], 0x50);
    EXPECT_EQ((*id)[1], 0x10);
    EXPECT_EQ((*id)[2], 0xfe);
}

TEST_F(NuvotonTest, EmptyAddressIsNacked) {
    NuvotonDriverSim other(*bus, clock, 0x2f);
    EXPECT_FALSE(other.read_block(kRegVidDidRid, 4));
    EXPECT_EQ(bus->nacks(), 1u);
}

TEST_F(NuvotonTest, SendAndReceiveRunsTheCommandOnce) {
    engine.response = {0x80, 0x01, 0, 0, 0, 20, 0, 0, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8};
    auto rsp = driver->transmit(kGetRandom);
    ASSERT_TRUE(rsp);
    EXPECT_EQ(*rsp, engine.response);
    ASSERT_EQ(engine.commands.size(), 1u);
    EXPECT_EQ(engine.commands[0], kGetRandom);
    EXPECT_EQ(tpm->stats().commands, 1u);
    EXPECT_EQ(tpm->stats().protocol_errors, 0u);
    EXPECT_EQ(tpm->stats().aborts, 0u);
    // The driver's commandReady after the response took the chip to Idle (TIS), not Ready.
    clock.advance(10ms);
    EXPECT_EQ(tpm->peek_status(), kStsValid);
}

TEST_F(NuvotonTest, LongCommandGoesInBurstsWithExpect) {
    std::vector<uint8_t> cmd(100, 0xaa);
    cmd[0] = 0x80, cmd[1] = 0x01, cmd[2] = 0, cmd[3] = 0, cmd[4] = 0, cmd[5] = 100;
    cmd[6] = 0, cmd[7] = 0, cmd[8] = 0x01, cmd[9] = 0x82;
    ASSERT_TRUE(driver->write_status(kStsCommandReady));
    ASSERT_TRUE(driver->wait_for_stat(kStsCommandReady, kStsCommandReady));
    ASSERT_TRUE(driver->write_block(kRegFifoWrite, std::span(cmd).subspan(0, 32)));
    EXPECT_EQ(driver->read_status(), kStsValid | kStsExpect);
    ASSERT_TRUE(driver->write_block(kRegFifoWrite, std::span(cmd).subspan(32, 67)));
    EXPECT_EQ(driver->read_status(), kStsValid | kStsExpect);
    ASSERT_TRUE(driver->write_block(kRegFifoWrite, std::span(cmd).subspan(99, 1)));
    EXPECT_EQ(driver->read_status(), kStsValid) << "EXPECT clears with the last byte";
    ASSERT_TRUE(driver->write_status(kStsGo));
    ASSERT_EQ(engine.commands.size(), 1u);
    EXPECT_EQ(engine.commands[0], cmd);
}

TEST_F(NuvotonTest, DataAvailableOnlyAfterTheProfileLatency) {
    ASSERT_TRUE(driver->write_status(kStsCommandReady));
    for (size_t i = 0; i < kGetRandom.size(); ++i)
        ASSERT_TRUE(driver->write_block(kRegFifoWrite, std::span(kGetRandom).subspan(i, 1)));
    ASSERT_TRUE(driver->write_status(kStsGo));
    EXPECT_EQ(driver->read_status(), kStsValid);
    EXPECT_EQ(driver->read_block(kRegBurstCount, 1)->at(0), 0) << "no data while executing";
    clock.advance(2999us);
    EXPECT_EQ(driver->read_status(), kStsValid) << "GetRandom takes 3 ms in this profile";
    clock.advance(1us);
    EXPECT_EQ(driver->read_status(), kStsValid | kStsDataAvail);
    EXPECT_EQ(tpm->stats().busy_status_reads, 2u);
}

TEST_F(NuvotonTest, DriverPollsWhileTheCommandRuns) {
    profile.command_time[0x17b] = 30ms;
    start();
    auto before = clock.now();
    ASSERT_TRUE(driver->send(kGetRandom));
    // 2 ms polls for 10 ms, then 10 ms polls: the first look after 30 ms is at ~40 ms.
    EXPECT_GE(clock.now() - before, 30ms);
    EXPECT_LT(clock.now() - before, 45ms);
    EXPECT_GE(driver->polls(), 5);
}

TEST_F(NuvotonTest, ResponseRetryRewindsTheResponse) {
    engine.response = {0x80, 0x01, 0, 0, 0, 14, 0, 0, 0, 0, 9, 8, 7, 6};
    ASSERT_TRUE(driver->send(kGetRandom));
    auto rsp = driver->recv(/*retry_first=*/true);
    ASSERT_TRUE(rsp);
    EXPECT_EQ(*rsp, engine.response);
    EXPECT_EQ(tpm->stats().response_retries, 1u);
}

TEST_F(NuvotonTest, CommandReadyCancelsARunningCommand) {
    profile.command_time[0x17b] = 50ms;
    start();
    ASSERT_TRUE(driver->write_status(kStsCommandReady));
    ASSERT_TRUE(driver->write_block(kRegFifoWrite, kGetRandom));
    ASSERT_TRUE(driver->write_status(kStsGo));
    clock.advance(5ms);
    ASSERT_TRUE(driver->write_status(kStsCommandReady)); // tpm_i2c_nuvoton's .cancel
    EXPECT_EQ(tpm->stats().aborts, 1u);
    EXPECT_EQ(driver->read_status(), kStsValid | kStsCommandReady) << "req_canceled sees 0x40";
    clock.advance(100ms);
    EXPECT_EQ(driver->read_status() & kStsDataAvail, 0) << "the cancelled response is gone";
    // The chip takes the next command normally.
    EXPECT_TRUE(driver->transmit(kGetRandom));
    EXPECT_EQ(tpm->stats().commands, 2u);
}

TEST_F(NuvotonTest, MisorderedAccessesAreProtocolErrorsNotCrashes) {
    EXPECT_TRUE(driver->write_status(kStsGo));       // GO with nothing received
    auto data = driver->read_block(kRegFifoRead, 8); // no response to read
    ASSERT_TRUE(data);
    EXPECT_EQ((*data)[0], 0xff);
    uint8_t b[1] = {1};
    EXPECT_TRUE(driver->write_block(kRegFifoWrite, b)); // FIFO write before commandReady
    EXPECT_EQ(tpm->stats().protocol_errors, 3u);
    EXPECT_TRUE(engine.commands.empty());
}

TEST_F(NuvotonTest, OversizedCommandIsBounded) {
    ASSERT_TRUE(driver->write_status(kStsCommandReady));
    std::vector<uint8_t> huge(5000, 0xff); // size field 0xffffffff
    for (size_t off = 0; off < huge.size(); off += 32)
        driver->write_block(kRegFifoWrite, std::span(huge).subspan(off, 32));
    EXPECT_GE(tpm->stats().protocol_errors, 1u);
    EXPECT_EQ(driver->read_status(), kStsValid) << "a full FIFO expects nothing more";
}

TEST_F(NuvotonTest, CommandReadyTakesTheProfileTime) {
    profile.command_ready_time = 500us;
    start();
    ASSERT_TRUE(driver->write_status(kStsCommandReady));
    EXPECT_EQ(driver->read_status(), kStsValid);
    EXPECT_EQ(driver->read_block(kRegBurstCount, 1)->at(0), 0);
    clock.advance(500us);
    EXPECT_EQ(driver->read_status(), kStsValid | kStsCommandReady);
}

TEST_F(NuvotonTest, StatusGapRequirementNacksEarlyAccess) {
    profile.requirements.min_status_gap = 6ms;
    start();
    ASSERT_TRUE(driver->write_status(kStsCommandReady));
    EXPECT_EQ(driver->read_status(), 0x07) << "NACK right after the status write";
    clock.advance(5ms);
    EXPECT_EQ(driver->read_status(), 0x07);
    clock.advance(1ms);
    EXPECT_EQ(driver->read_status(), kStsValid | kStsCommandReady);
    EXPECT_EQ(tpm->stats().status_gap_violations, 2u);
    EXPECT_EQ(tpm->stats().nacks, 2u);
}

TEST_F(NuvotonTest, PatchedTimingBreaksTheStrictProfileAndMsleepTimingDoesNot) {
    profile.requirements.min_status_gap = 6ms;
    profile.requirements.min_poll_interval = 6ms;
    start();
    NuvotonDriverSim historical(*bus, clock);
    historical.use_msleep_timing();
    ASSERT_TRUE(historical.transmit(kGetRandom));
    EXPECT_EQ(tpm->stats().violations(), 0u) << "msleep(1)/msleep(2) wait long enough";

    ASSERT_TRUE(driver->transmit(kGetRandom)) << "usleep_range still gets through, slowly";
    EXPECT_GT(tpm->stats().status_gap_violations, 0u);
    EXPECT_EQ(tpm->stats().commands, 2u);
}

TEST_F(NuvotonTest, PollIntervalRequirementCountsFastPolls) {
    profile.command_time[0x17b] = 20ms;
    profile.requirements.min_poll_interval = 6ms;
    start();
    ASSERT_TRUE(driver->send(kGetRandom));
    EXPECT_GT(tpm->stats().poll_interval_violations, 0u);
    EXPECT_EQ(tpm->stats().status_gap_violations, 0u);
}

} // namespace
} // namespace ksweep::device
