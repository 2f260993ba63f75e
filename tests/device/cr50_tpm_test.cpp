// The cr50 model against the register-level sequences of tpm_tis_i2c_cr50.c (probe, send, the
// core's completion poll, recv, release), with and without its interrupt line, its framing and
// malformed messages; the profile switches that make the driver take each of its four 2 ms
// polls, and the strict profile's requirement against the patched and the msleep() timing; a
// real TPM 2.0 (libtpms) behind it, TPM2_PCR_Extend checked against SHA-256(old || digest).
#include "core/file_io.h"
#include "cr50_driver_sim.h"
#include "device/device_models.h"
#include "device/device_profile.h"
#include "device/tpm_engine.h"
#include "scripted_tpm.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

namespace ksweep::device {
namespace {

using namespace testing;
using namespace cr50;

// TPM2_PCR_Extend of PCR 16 with one SHA-256 digest and an empty password session (65 bytes:
// more than one 62-byte FIFO write).
std::vector<uint8_t> tpm2_extend_16(uint8_t fill) {
    std::vector<uint8_t> cmd = {0x80, 0x02, 0, 0,  0,    65,  0, 0, 0x01, 0x82, // header
                                0,    0,    0, 16,                              // PCR 16
                                0,    0,    0, 9,  0x40, 0,   0, 9, 0,    0,
                                0,    0,    0,                  // TPM_RS_PW session
                                0,    0,    0, 1,  0,    0x0b}; // 1 digest, SHA-256
    cmd.resize(65, fill);
    return cmd;
}

DeviceProfile make_profile() {
    DeviceProfile p;
    p.name = "test";
    p.default_command_time = 1ms;
    p.command_time[0x182] = 3ms;
    p.burst_count = 63;
    p.interrupt_delay = 50us;
    return p;
}

struct Cr50Test : ::testing::Test {
    ManualClock clock;
    ScriptedTpm engine;
    DeviceProfile profile = make_profile();
    std::vector<std::string> log;
    CountingLine line;
    std::unique_ptr<I2cBus> bus;
    std::unique_ptr<Cr50Tpm> tpm;
    std::unique_ptr<Cr50DriverSim> driver;

    void SetUp() override {
        // TPM2_PCR_Extend's response: header, parameter size and the session (19 bytes).
        engine.response = {0x80, 0x02, 0, 0, 0, 19, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0};
        start(true);
    }
    // (Re)builds the chip after a test changed the profile; `wired`: the interrupt line is.
    void start(bool wired) {
        tpm = std::make_unique<Cr50Tpm>(clock, engine, profile,
                                        [this](const std::string& l) { log.push_back(l); });
        if (wired) {
            EXPECT_TRUE(tpm->wire_interrupt(line));
        }
        bus = std::make_unique<I2cBus>(clock);
        ASSERT_TRUE(bus->attach(kDefaultAddress, *tpm));
        driver = std::make_unique<Cr50DriverSim>(*bus, clock, wired ? &line : nullptr);
    }
    std::string joined_log() const {
        std::string all;
        for (const auto& l : log)
            all += l + "\n";
        return all;
    }
};

TEST_F(Cr50Test, ProbeFindsTheCr50AndTheLocalityAtOnce) {
    ASSERT_TRUE(driver->probe()) << joined_log();
    EXPECT_EQ(driver->sleeps.total(), 0);
    EXPECT_EQ(tpm->stats().protocol_errors, 0u) << joined_log();
    // One pulse per write the chip took in: ACCESS pointer, request, ACCESS pointer, DID_VID
    // pointer.
    EXPECT_EQ(line.pulses, 4);
}

TEST_F(Cr50Test, TwoCommandsRunOnceEachAndSleepTwiceInSetReady) {
    ASSERT_TRUE(driver->probe());
    for (uint8_t i = 0; i < 2; ++i) {
        auto rsp = driver->transmit(tpm2_extend_16(i));
        ASSERT_TRUE(rsp) << joined_log();
        EXPECT_EQ(*rsp, engine.response);
    }
    ASSERT_EQ(engine.commands.size(), 2u);
    EXPECT_EQ(engine.commands[1], tpm2_extend_16(1));
    EXPECT_EQ(tpm->stats().protocol_errors, 0u) << joined_log();
    EXPECT_EQ(tpm->stats().nacks, 0u);
    // The firmware's commandReady: the first command finds the chip Idle (one set_ready); after
    // a response commandReady takes it Idle and the next one Ready: two sleeps per command.
    EXPECT_EQ(driver->sleeps.set_ready, 1 + 2) << joined_log();
    EXPECT_EQ(driver->sleeps.request_locality, 0);
    EXPECT_EQ(driver->sleeps.status_read_failed, 0);
    EXPECT_EQ(driver->sleeps.burst_or_mask, 0);
}

TEST_F(Cr50Test, WithoutTheLineEveryAccessWaitsTwentyMilliseconds) {
    start(false);
    ASSERT_TRUE(driver->probe());
    auto before = clock.now();
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(7))) << joined_log();
    auto took = clock.now() - before;
    EXPECT_EQ(line.pulses, 0);
    // Over a dozen register accesses at 20 ms each: the 2 ms sleeps are a few percent of it.
    EXPECT_GT(took, 240ms);
    EXPECT_EQ(driver->sleeps.set_ready, 1);
    EXPECT_LT(driver->sleeps.set_ready * 2150us, took / 20);
}

TEST_F(Cr50Test, BurstIsTheRemainingResponseThenAFullWriteBurst) {
    ASSERT_TRUE(driver->probe());
    ASSERT_TRUE(driver->send(tpm2_extend_16(1)));
    clock.advance(5ms);
    uint8_t sts[4] = {};
    ASSERT_TRUE(driver->read(kRegStatus, sts));
    EXPECT_EQ(sts[0], tis::kStsValid | tis::kStsDataAvail);
    EXPECT_EQ(sts[1] | sts[2] << 8, 19) << "the first read takes exactly the burst";
    EXPECT_EQ(sts[3], kStatusFamilyTpm2);
    std::vector<uint8_t> rsp(19);
    ASSERT_TRUE(driver->read(kRegDataFifo, rsp));
    ASSERT_TRUE(driver->read(kRegStatus, sts));
    EXPECT_EQ(sts[0], tis::kStsValid);
    EXPECT_EQ(sts[1] | sts[2] << 8, 63) << "recv's last check needs a burst in 1..63";
}

TEST_F(Cr50Test, LateLocalityWithAPendingRequestMakesRequestLocalityPoll) {
    profile.access_request_pending = true;
    profile.locality_grant_time = 500us;
    start(true);
    ASSERT_TRUE(driver->probe());
    EXPECT_EQ(driver->sleeps.request_locality, 1);
    // recv sees the other locality's request and gives locality 0 up: every command after the
    // first (which keeps the probe's) asks again.
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(1)));
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(2))) << joined_log();
    EXPECT_EQ(driver->sleeps.request_locality, 2);
    // Released, the chip went Idle: one set_ready per command.
    EXPECT_EQ(driver->sleeps.set_ready, 1 + 1);
    EXPECT_EQ(tpm->stats().protocol_errors, 0u) << joined_log();
}

TEST_F(Cr50Test, ABusyChipAfterAFifoWriteFailsTheStatusRead) {
    profile.busy_after_fifo_write = 1ms; // longer than 3 tries 60 us apart
    start(true);
    ASSERT_TRUE(driver->probe());
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(1))) << joined_log();
    EXPECT_EQ(driver->sleeps.status_read_failed, 2) << "once after each of the two FIFO writes";
    EXPECT_EQ(tpm->stats().nacks, 6u);
    EXPECT_EQ(driver->nacked_messages, 6);
}

TEST_F(Cr50Test, NoBurstAfterAFifoWriteFailsTheBurstCheck) {
    profile.no_burst_after_fifo_write = 1ms;
    start(true);
    ASSERT_TRUE(driver->probe());
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(1))) << joined_log();
    EXPECT_EQ(driver->sleeps.burst_or_mask, 2);
    EXPECT_EQ(driver->sleeps.status_read_failed, 0);
}

TEST_F(Cr50Test, ReadyWriteGapIsBrokenByTheTwoMillisecondSleepOnly) {
    profile.requirements.min_ready_write_gap = 3ms;
    start(true);
    ASSERT_TRUE(driver->probe());
    // msleep(2) at HZ=250 on 6.1: 3 jiffies, 8-12 ms.
    driver->set_short_sleep(10ms);
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(1)));
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(2)));
    EXPECT_EQ(tpm->stats().ready_write_gap_violations, 0u) << joined_log();
    // tpm_msleep(2): usleep_range(2000, 2300).
    driver->set_short_sleep(2150us);
    ASSERT_TRUE(driver->transmit(tpm2_extend_16(3)));
    EXPECT_EQ(tpm->stats().ready_write_gap_violations, 2u) << joined_log();
    EXPECT_NE(joined_log().find("tpm: violation: TPM_STS access "), std::string::npos);
    EXPECT_NE(joined_log().find("after commandReady was written (min_ready_write_gap_us 3000)"),
              std::string::npos)
        << joined_log();
}

TEST_F(Cr50Test, MalformedAccessesAreProtocolErrorsNotCrashes) {
    uint8_t short_status[2] = {};
    uint8_t other_locality = kRegStatus | 1 << kLocalityShift;
    EXPECT_TRUE(bus->write(kDefaultAddress, std::span(&other_locality, 1)));
    EXPECT_TRUE(bus->read(kDefaultAddress, short_status));
    EXPECT_EQ(short_status[0], 0xff);
    uint8_t status = kRegStatus;
    EXPECT_TRUE(bus->write(kDefaultAddress, std::span(&status, 1)));
    EXPECT_TRUE(bus->read(kDefaultAddress, short_status)); // TPM_STS is read 4 bytes at once
    const uint8_t unknown[] = {0x0e, 1};
    EXPECT_TRUE(bus->write(kDefaultAddress, unknown));
    std::vector<uint8_t> too_long(kMaxMessage + 2, 0);
    too_long[0] = kRegDataFifo;
    EXPECT_TRUE(bus->write(kDefaultAddress, too_long));
    EXPECT_EQ(tpm->stats().protocol_errors, 5u) << joined_log();
}

TEST_F(Cr50Test, TheModelTableKnowsTheCr50AsATpm20ChipWithAnInterruptLine) {
    const ModelClass* model = find_model_class("cr50");
    ASSERT_NE(model, nullptr);
    EXPECT_TRUE(model->tpm20);
    EXPECT_FALSE(model->tpm12);
    EXPECT_TRUE(model->interrupt_line);
    EXPECT_FALSE(find_model_class("nuvoton")->interrupt_line);
}

std::array<uint8_t, 32> sha256(std::span<const uint8_t> data) {
    std::array<uint8_t, 32> out{};
    unsigned len = 0;
    EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
    return out;
}

TEST(Cr50Libtpms, ExtendThroughTheDriverSequenceChainsSha256) {
    TempDir state("cr50-libtpms");
    std::string error;
    auto engine = LibtpmsEngine::start(state.path().string(), TpmFamily::tpm20, error);
    ASSERT_TRUE(engine) << error;
    ManualClock clock;
    DeviceProfile profile = make_profile();
    CountingLine line;
    Cr50Tpm tpm(clock, *engine, profile, [](const std::string&) {});
    tpm.wire_interrupt(line);
    I2cBus bus(clock);
    bus.attach(kDefaultAddress, tpm);
    Cr50DriverSim driver(bus, clock, &line);
    ASSERT_TRUE(driver.probe());
    // TPM2_Startup(SU_CLEAR) as the kernel sends it, TPM2_PCR_Reset(16), one extend, then
    // TPM2_PCR_Read(16) in the SHA-256 bank.
    auto started = driver.transmit({0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0});
    ASSERT_TRUE(started);
    ASSERT_EQ(tpm_header_code(*started), 0u);
    const std::vector<uint8_t> reset = {0x80, 0x02, 0, 0, 0,    27, 0, 0, 0x01, 0x3d, 0, 0, 0, 16,
                                        0,    0,    0, 9, 0x40, 0,  0, 9, 0,    0,    0, 0, 0};
    auto rsp = driver.transmit(reset);
    ASSERT_TRUE(rsp);
    ASSERT_EQ(tpm_header_code(*rsp), 0u);
    auto extend = tpm2_extend_16(0x5a);
    rsp = driver.transmit(extend);
    ASSERT_TRUE(rsp);
    ASSERT_EQ(tpm_header_code(*rsp), 0u);
    const std::vector<uint8_t> read = {0x80, 0x01, 0, 0, 0, 20,   0, 0, 0x01, 0x7e,
                                       0,    0,    0, 1, 0, 0x0b, 3, 0, 0,    1}; // PCR 16
    rsp = driver.transmit(read);
    ASSERT_TRUE(rsp);
    ASSERT_EQ(tpm_header_code(*rsp), 0u);
    std::vector<uint8_t> chained(32, 0);
    chained.insert(chained.end(), extend.end() - 32, extend.end());
    auto want = sha256(chained);
    ASSERT_GE(rsp->size(), 32u);
    EXPECT_TRUE(std::equal(want.begin(), want.end(), rsp->end() - 32));
    EXPECT_EQ(tpm.stats().protocol_errors, 0u);
}

} // namespace
} // namespace ksweep::device
