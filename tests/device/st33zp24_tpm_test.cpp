// The ST33ZP24 model against the register-level sequences of st33zp24.c and i2c.c (locality,
// send, the core's completion poll, receive, cancel, release), its framing and malformed
// messages, its commandReady latency and its timing requirement, with a manual clock; and a
// real TPM 1.2 (libtpms) behind it, TPM_Extend checked against SHA-1(old || digest).
#include "core/file_io.h"
#include "device/device_profile.h"
#include "device/st33zp24_tpm.h"
#include "device/tpm_engine.h"
#include "st33zp24_driver_sim.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

namespace ksweep::device {
namespace {

using namespace testing;
using namespace st33zp24;
using tis::kStsCommandReady;
using tis::kStsValid;

// TPM_Extend of PCR 16 (TPM 1.2, ordinal 0x14): tag, size 34, ordinal, index, 20-byte digest.
std::vector<uint8_t> tpm12_extend_16(const std::array<uint8_t, 20>& digest) {
    const uint8_t head[] = {0x00, 0xc1, 0, 0, 0, 34, 0, 0, 0, 0x14, 0, 0, 0, 16};
    std::vector<uint8_t> cmd(sizeof head + digest.size());
    std::copy(std::begin(head), std::end(head), cmd.begin());
    std::copy(digest.begin(), digest.end(), cmd.begin() + sizeof head);
    return cmd;
}

DeviceProfile make_profile() {
    DeviceProfile p;
    p.name = "test";
    p.default_command_time = 1ms;
    p.command_time[0x14] = 3ms;
    p.command_ready_time = 2ms;
    p.burst_count = 32;
    return p;
}

struct St33zp24Test : ::testing::Test {
    ManualClock clock;
    ScriptedTpm engine;
    DeviceProfile profile = make_profile();
    std::vector<std::string> log;
    std::unique_ptr<I2cBus> bus;
    std::unique_ptr<St33zp24Tpm> tpm;
    std::unique_ptr<St33zp24DriverSim> driver;

    void SetUp() override {
        // TPM_Extend's response: header and the new PCR value (30 bytes).
        engine.response = {0x00, 0xc4, 0, 0, 0, 30, 0, 0, 0, 0};
        engine.response.resize(30, 0x5a);
        start();
    }
    // (Re)builds the chip after a test changed the profile.
    void start() {
        tpm = std::make_unique<St33zp24Tpm>(clock, engine, profile,
                                            [this](const std::string& l) { log.push_back(l); });
        bus = std::make_unique<I2cBus>(clock);
        ASSERT_TRUE(bus->attach(kDefaultAddress, *tpm));
        driver = std::make_unique<St33zp24DriverSim>(*bus, clock);
    }
    std::string joined_log() const {
        std::string all;
        for (const auto& l : log)
            all += l + "\n";
        return all;
    }
};

TEST_F(St33zp24Test, DriverSequenceRunsTheCommandOnceWithoutProtocolErrors) {
    std::array<uint8_t, 20> digest{};
    digest.fill(0x11);
    auto rsp = driver->transmit(tpm12_extend_16(digest));
    ASSERT_TRUE(rsp);
    EXPECT_EQ(*rsp, engine.response);
    ASSERT_EQ(engine.commands.size(), 1u);
    EXPECT_EQ(engine.commands[0], tpm12_extend_16(digest));
    const TpmChipStats& s = tpm->stats();
    EXPECT_EQ(s.commands, 1u);
    EXPECT_EQ(s.commands_by_code.at(0x14), 1u);
    EXPECT_EQ(s.protocol_errors, 0u) << joined_log();
    EXPECT_EQ(s.aborts, 0u);
    EXPECT_EQ(bus->nacks(), 0u);
    // recv ends with cancel and release_locality: the chip drops the response and is Idle
    // (TIS), however long the next command takes to come.
    EXPECT_FALSE(tpm->locality_active());
    clock.advance(50ms);
    EXPECT_EQ(tpm->peek_status(), kStsValid);
}

// Each command finds the chip Idle, cancels, and wait_for_stat's first check comes before the
// chip is ready: one msleep(TPM_TIMEOUT) per command, whether user space sends the next command
// at once or after a while (the wait starts at the driver's own commandReady write).
TEST_F(St33zp24Test, EveryCommandWaitsOnceForCommandReady) {
    std::array<uint8_t, 20> digest{};
    for (int i = 0; i < 4; ++i) {
        digest[0] = static_cast<uint8_t>(i);
        ASSERT_TRUE(driver->transmit(tpm12_extend_16(digest))) << i;
        clock.advance(i % 2 ? 0ms : 10ms);
    }
    EXPECT_EQ(engine.commands.size(), 4u);
    EXPECT_EQ(driver->sleeps(), 4);
    EXPECT_EQ(tpm->stats().protocol_errors, 0u) << joined_log();
}

TEST_F(St33zp24Test, AChipReadyAtOnceNeverMakesTheDriverSleep) {
    profile.command_ready_time = Duration::zero();
    start();
    ASSERT_TRUE(driver->transmit(tpm12_extend_16({})));
    ASSERT_TRUE(driver->transmit(tpm12_extend_16({})));
    EXPECT_EQ(driver->sleeps(), 0);
}

TEST_F(St33zp24Test, ALongCommandGoesInBurstsAndTheLastByteAlone) {
    std::vector<uint8_t> cmd(100, 0xaa);
    cmd[0] = 0x00, cmd[1] = 0xc1, cmd[2] = 0, cmd[3] = 0, cmd[4] = 0, cmd[5] = 100;
    cmd[6] = 0, cmd[7] = 0, cmd[8] = 0, cmd[9] = 0x65;
    std::vector<std::string> writes;
    bus->set_trace([&](const I2cMessage& m) {
        if (!m.read && !m.data.empty() && m.data[0] == (kRegDataFifo | kWriteDirection))
            writes.push_back(std::to_string(m.data.size() - 1));
    });
    ASSERT_TRUE(driver->transmit(cmd));
    EXPECT_EQ(writes, (std::vector<std::string>{"32", "32", "32", "3", "1"}));
    EXPECT_EQ(engine.commands.at(0), cmd);
    EXPECT_EQ(tpm->stats().protocol_errors, 0u) << joined_log();
}

TEST_F(St33zp24Test, FramingReadsThroughAPointerWriteAndWritesCarryTheDirectionBit) {
    uint8_t byte = 0;
    // TPM_ACCESS: valid, no locality yet.
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{kRegAccess, 0xaa}));
    ASSERT_TRUE(bus->read(kDefaultAddress, std::span(&byte, 1)));
    EXPECT_EQ(byte, kAccessValid);
    // requestUse, written as [0x80, 0x02]: granted.
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{0x80, kAccessRequestUse}));
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{kRegAccess, 0xaa}));
    ASSERT_TRUE(bus->read(kDefaultAddress, std::span(&byte, 1)));
    EXPECT_EQ(byte, kAccessValid | kAccessActiveLocality);
    // commandReady through [0x98, 0x40]; once ready, a 3-byte read of TPM_STS is the status
    // and the 16-bit burst count (registers 0x18, 0x19, 0x1a).
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{0x98, kStsCommandReady}));
    clock.advance(profile.command_ready_time);
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{kRegStatus, 0xaa}));
    std::vector<uint8_t> sts(3);
    ASSERT_TRUE(bus->read(kDefaultAddress, sts));
    EXPECT_EQ(sts, (std::vector<uint8_t>{kStsValid | kStsCommandReady, 32, 0}));
    EXPECT_EQ(tpm->stats().protocol_errors, 0u) << joined_log();
}

TEST_F(St33zp24Test, MalformedMessagesAreLoggedNeverNacked) {
    const std::vector<std::vector<uint8_t>> bad = {
        {0x98},                   // a register write without data
        {kRegAccess, 0xaa, 0xaa}, // a pointer write with two dummy bytes
        {0x80, 0x55},             // TPM_ACCESS: neither requestUse nor activeLocality
        {0x98, kStsCommandReady}, // TPM_STS without the locality
        {0xb0, 0x01},             // a register the chip does not have
    };
    for (const auto& m : bad)
        EXPECT_TRUE(bus->write(kDefaultAddress, m));
    uint8_t byte = 0;
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{kRegDataFifo, 0xaa}));
    EXPECT_TRUE(bus->read(kDefaultAddress, std::span(&byte, 1))); // the FIFO without the locality
    EXPECT_EQ(byte, 0xff);
    EXPECT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{0x80, kAccessRequestUse}));
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{0x30, 0xaa}));
    EXPECT_TRUE(bus->read(kDefaultAddress, std::span(&byte, 1))); // no register 0x30
    EXPECT_EQ(byte, 0xff);
    ASSERT_TRUE(bus->write(kDefaultAddress, std::vector<uint8_t>{kRegDataFifo, 0xaa}));
    EXPECT_TRUE(bus->read(kDefaultAddress, std::span(&byte, 1))); // no response to read
    EXPECT_EQ(bus->nacks(), 0u);
    EXPECT_EQ(tpm->stats().protocol_errors, 8u) << joined_log();
    EXPECT_EQ(engine.commands.size(), 0u);
    // Zero-length messages (an address probe) are fine.
    EXPECT_TRUE(bus->write(kDefaultAddress, {}));
    EXPECT_TRUE(bus->read(kDefaultAddress, {}));
    EXPECT_EQ(tpm->stats().protocol_errors, 8u);
}

// The strict profile's requirement: msleep(TPM_TIMEOUT) at HZ=250 waits long enough, the
// patched usleep_range(5000, 5300) does not. The chip counts and logs, and still answers.
TEST_F(St33zp24Test, ReadyPollIntervalIsBrokenByTheShortSleepOnly) {
    profile.requirements.min_ready_poll_interval = 7ms;
    start();
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(driver->transmit(tpm12_extend_16({})));
    // One per command: each waits once for commandReady (the first finds the chip idle).
    EXPECT_EQ(tpm->stats().ready_poll_violations, 3u) << joined_log();
    EXPECT_EQ(tpm->stats().violations(), 3u);
    EXPECT_EQ(bus->nacks(), 0u);
    EXPECT_NE(joined_log().find("tpm: violation: status poll 5150 us after one that found "
                                "commandReady pending (min_ready_poll_interval_us 7000)"),
              std::string::npos)
        << joined_log();

    log.clear();
    start();
    driver->use_msleep_timing();
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(driver->transmit(tpm12_extend_16({})));
    EXPECT_EQ(tpm->stats().ready_poll_violations, 0u) << joined_log();
    EXPECT_EQ(driver->sleeps(), 3);
}

using Sha1 = std::array<uint8_t, 20>;

Sha1 sha1_concat(const Sha1& a, const Sha1& b) {
    uint8_t in[40];
    std::copy(a.begin(), a.end(), in);
    std::copy(b.begin(), b.end(), in + 20);
    Sha1 out;
    unsigned int len = 0;
    EVP_Digest(in, sizeof in, out.data(), &len, EVP_sha1(), nullptr);
    return out;
}

TEST(St33zp24Libtpms12Test, TpmExtendThroughTheRegisterProtocolMatchesTheSha1Chain) {
    TempDir tmp{"ksweep-st33"};
    std::string error;
    auto engine = LibtpmsEngine::start(tmp.path(), TpmFamily::tpm12, error);
    ASSERT_TRUE(engine) << error;
    ManualClock clock;
    DeviceProfile profile = make_profile();
    std::vector<std::string> log;
    St33zp24Tpm tpm(clock, *engine, profile, [&](const std::string& l) { log.push_back(l); });
    I2cBus bus(clock);
    ASSERT_TRUE(bus.attach(kDefaultAddress, tpm));
    St33zp24DriverSim driver(bus, clock);

    // TPM_PCR_Reset of PCR 16 (debug PCR, resettable from locality 0): it reads zero after.
    auto rsp = driver.transmit({0x00, 0xc1, 0, 0, 0, 15, 0, 0, 0, 0xc8, 0, 3, 0, 0, 1});
    ASSERT_TRUE(rsp);
    ASSERT_EQ(tpm_header_code(*rsp), 0u);
    Sha1 expected{};
    for (int i = 0; i < 3; ++i) {
        Sha1 d;
        for (size_t k = 0; k < d.size(); ++k)
            d[k] = static_cast<uint8_t>(i * 20 + k);
        rsp = driver.transmit(tpm12_extend_16(d));
        ASSERT_TRUE(rsp);
        ASSERT_EQ(rsp->size(), 30u);
        ASSERT_EQ(tpm_header_code(*rsp), 0u);
        expected = sha1_concat(expected, d);
        // TPM_Extend returns the new value.
        EXPECT_TRUE(std::equal(expected.begin(), expected.end(), rsp->begin() + 10));
    }
    rsp = driver.transmit({0x00, 0xc1, 0, 0, 0, 14, 0, 0, 0, 0x15, 0, 0, 0, 16}); // TPM_PCRRead
    ASSERT_TRUE(rsp);
    ASSERT_EQ(rsp->size(), 30u);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), rsp->begin() + 10));
    EXPECT_EQ(tpm.stats().commands_by_code.at(0x14), 3u);
    EXPECT_EQ(tpm.stats().protocol_errors, 0u);
}

} // namespace
} // namespace ksweep::device
