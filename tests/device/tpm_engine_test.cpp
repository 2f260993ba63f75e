// A real TPM 2.0 (libtpms) behind the Nuvoton model: PCR_Extend through the register protocol,
// checked against SHA-256(old || digest) computed here.
#include "core/file_io.h"
#include "device/device_profile.h"
#include "device/nuvoton_tpm.h"
#include "device/tpm_engine.h"
#include "nuvoton_driver_sim.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <openssl/evp.h>

namespace ksweep::device {
namespace {

using namespace testing;
namespace fs = std::filesystem;

using Digest = std::array<uint8_t, 32>;

Digest sha256_concat(const Digest& a, const Digest& b) {
    uint8_t in[64];
    std::copy(a.begin(), a.end(), in);
    std::copy(b.begin(), b.end(), in + 32);
    Digest out;
    unsigned int len = 0;
    EVP_Digest(in, sizeof in, out.data(), &len, EVP_sha256(), nullptr);
    return out;
}

const std::vector<uint8_t> kStartupClear = {0x80, 0x01, 0, 0, 0, 12, 0, 0, 0x01, 0x44, 0, 0};

// TPM2_PCR_Read of SHA-256 PCR 16.
const std::vector<uint8_t> kPcrRead16 = {0x80, 0x01, 0, 0, 0, 0x14, 0, 0, 0x01, 0x7e,
                                         0,    0,    0, 1, 0, 0x0b, 3, 0, 0,    1};

// TPM2_PCR_Extend of PCR 16 with one SHA-256 digest under a password session (65 bytes).
std::vector<uint8_t> pcr_extend_16(const Digest& digest) {
    std::vector<uint8_t> cmd = {0x80, 0x02, 0,    0, 0, 0x41, 0, 0,    0x01, 0x82, 0,
                                0,    0,    0x10, 0, 0, 0,    9, 0x40, 0,    0,    9,
                                0,    0,    0,    0, 0, 0,    0, 0,    1,    0,    0x0b};
    cmd.insert(cmd.end(), digest.begin(), digest.end());
    return cmd;
}

uint32_t response_code(const std::vector<uint8_t>& rsp) {
    return tpm_header_code(rsp);
}

struct LibtpmsTest : ::testing::Test {
    TempDir tmp{"ksweep-tpm"};
    const fs::path state_dir = tmp.path();
    std::unique_ptr<LibtpmsEngine> engine; // goes first, then the directory

    void SetUp() override {
        std::string error;
        engine = LibtpmsEngine::start(state_dir, TpmFamily::tpm20, error);
        ASSERT_TRUE(engine) << error;
    }
};

TEST_F(LibtpmsTest, StateLivesInTheStateDirectory) {
    ASSERT_EQ(response_code(engine->execute(kStartupClear)), 0u);
    bool found = false;
    for (const auto& entry : fs::directory_iterator(state_dir))
        found |= entry.path().filename().string().starts_with("tpm2-");
    EXPECT_TRUE(found) << "libtpms NV state belongs in the run's state directory";
    EXPECT_FALSE(fs::exists("NVChip")) << "libtpms' default NV file must not be used";
}

TEST_F(LibtpmsTest, OnlyOneEnginePerProcess) {
    std::string error;
    EXPECT_FALSE(LibtpmsEngine::start(state_dir, TpmFamily::tpm20, error));
    EXPECT_NE(error.find("already running"), std::string::npos);
}

TEST_F(LibtpmsTest, TruncatedCommandGetsAnErrorResponse) {
    std::vector<uint8_t> bad = {0x80, 0x01, 0, 0, 0, 50, 0, 0, 0x01, 0x44};
    auto rsp = engine->execute(bad);
    ASSERT_GE(rsp.size(), 10u);
    EXPECT_NE(response_code(rsp), 0u);
}

TEST_F(LibtpmsTest, PcrExtendThroughTheRegisterProtocolMatchesTheHashChain) {
    ManualClock clock;
    DeviceProfile profile;
    profile.default_command_time = 1ms;
    profile.command_time[0x182] = 3ms;
    std::vector<std::string> log;
    NuvotonTpm tpm(clock, *engine, profile, [&](const std::string& l) { log.push_back(l); });
    I2cBus bus(clock);
    ASSERT_TRUE(bus.attach(nuvoton::kDefaultAddress, tpm));
    NuvotonDriverSim driver(bus, clock);

    auto rsp = driver.transmit(kStartupClear);
    ASSERT_TRUE(rsp);
    ASSERT_EQ(response_code(*rsp), 0u);

    Digest expected{}; // PCR 16 starts at zero
    for (int i = 0; i < 3; ++i) {
        Digest d;
        for (size_t k = 0; k < d.size(); ++k)
            d[k] = static_cast<uint8_t>(i * 32 + k);
        rsp = driver.transmit(pcr_extend_16(d));
        ASSERT_TRUE(rsp);
        const std::vector<uint8_t> ok = {0x80, 0x02, 0, 0, 0, 0x13, 0, 0, 0, 0,
                                         0,    0,    0, 0, 0, 0,    1, 0, 0};
        EXPECT_EQ(*rsp, ok);
        expected = sha256_concat(expected, d);
    }
    rsp = driver.transmit(kPcrRead16);
    ASSERT_TRUE(rsp);
    ASSERT_EQ(rsp->size(), 62u);
    ASSERT_EQ(response_code(*rsp), 0u);
    Digest pcr;
    std::copy(rsp->end() - 32, rsp->end(), pcr.begin());
    EXPECT_EQ(pcr, expected);
    EXPECT_EQ(tpm.stats().commands, 5u);
    EXPECT_EQ(tpm.stats().commands_by_code.at(0x182), 3u);
    EXPECT_EQ(tpm.stats().protocol_errors, 0u);
}

// A TPM 1.2 engine is started the way platform firmware starts the chip, before the guest sees
// it: a second TPM_Startup is refused as TPM_INVALID_POSTINIT, and PCR commands work at once.
TEST(Libtpms12Test, StartsInTpm12ModeWithStartupClearDone) {
    TempDir tmp{"ksweep-tpm12"};
    std::string error;
    auto engine = LibtpmsEngine::start(tmp.path(), TpmFamily::tpm12, error);
    ASSERT_TRUE(engine) << error;
    const std::vector<uint8_t> startup = {0x00, 0xc1, 0, 0, 0, 12, 0, 0, 0, 0x99, 0, 1};
    auto rsp = engine->execute(startup);
    EXPECT_EQ(rsp[1], 0xc4) << "a TPM 1.2 response tag";
    EXPECT_EQ(response_code(rsp), 0x26u) << "TPM_INVALID_POSTINIT: already started";
    const std::vector<uint8_t> pcr_read = {0x00, 0xc1, 0, 0, 0, 14, 0, 0, 0, 0x15, 0, 0, 0, 16};
    rsp = engine->execute(pcr_read);
    EXPECT_EQ(response_code(rsp), 0u);
    EXPECT_EQ(rsp.size(), 30u) << "header and a SHA-1 PCR value";
    bool found = false;
    for (const auto& entry : fs::directory_iterator(tmp.path()))
        found |= entry.path().filename().string().starts_with("tpm12-");
    EXPECT_TRUE(found);
}

TEST(TpmErrorResponse, TagFollowsTheFamily) {
    EXPECT_EQ(tpm_error_response(TpmFamily::tpm20, 0x101),
              (std::vector<uint8_t>{0x80, 0x01, 0, 0, 0, 10, 0, 0, 0x01, 0x01}));
    EXPECT_EQ(tpm_error_response(TpmFamily::tpm12, 0x09),
              (std::vector<uint8_t>{0x00, 0xc4, 0, 0, 0, 10, 0, 0, 0, 0x09}));
}

} // namespace
} // namespace ksweep::device
