// The Nuvoton NPCT I2C TPM as drivers/char/tpm/tpm_i2c_nuvoton.c drives it: SMBus i2c-block
// transfers whose command byte selects a register, a TIS-like status register, a one-byte burst
// count, FIFOs in and out, and the ID register the probe checks.
//
// Commands finish asynchronously, as on the chip: GO hands the command to the engine at once,
// but TPM_STS shows dataAvail only once the profile's execution time has passed on the clock.
// The profile's timing requirements are checked on every access; an access that breaks one is
// NACKed and counted.
#pragma once

#include "device/device_profile.h"
#include "device/i2c_bus.h"
#include "device/nuvoton_tpm_stats.h"
#include "device/tpm_engine.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ksweep::device {

namespace nuvoton {
inline constexpr uint16_t kDefaultAddress = 0x2e;

// Registers (the SMBus command byte).
inline constexpr uint8_t kRegStatus = 0x00;
inline constexpr uint8_t kRegBurstCount = 0x01;
inline constexpr uint8_t kRegFifoWrite = 0x20;
inline constexpr uint8_t kRegFifoRead = 0x40;
inline constexpr uint8_t kRegVidDidRid = 0x60;

// TPM_STS bits.
inline constexpr uint8_t kStsValid = 0x80;
inline constexpr uint8_t kStsCommandReady = 0x40;
inline constexpr uint8_t kStsGo = 0x20;
inline constexpr uint8_t kStsDataAvail = 0x10;
inline constexpr uint8_t kStsExpect = 0x08;
inline constexpr uint8_t kStsResponseRetry = 0x02;

// Vendor 0x1050 (Winbond/Nuvoton), device 0xfe, revision: what the probe compares.
inline constexpr uint8_t kVidDidRid[4] = {0x50, 0x10, 0xfe, 0x00};

inline constexpr size_t kMaxCommandSize = 4096;
} // namespace nuvoton

class NuvotonTpm final : public I2cDevice {
  public:
    NuvotonTpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log);

    bool write(std::span<const uint8_t> data) override;
    bool read(std::span<uint8_t> data) override;

    // TPM_STS as a read now would return it, without counting or checking requirements.
    uint8_t peek_status();
    const NuvotonTpmStats& stats() const { return stats_; }

  private:
    enum class State { Idle, Ready, Reception, Execution, Completion };

    // Checks the profile's timing requirements for an access; false means NACK.
    bool accept_access(bool status_read);
    void write_status(uint8_t value);
    void write_fifo(std::span<const uint8_t> bytes);
    void read_fifo(std::span<uint8_t> out);
    void execute();
    void advance(); // Execution -> Completion once the execution time has passed
    uint8_t status();
    uint8_t burst_count();
    size_t expected_command_size() const;
    void protocol_error(const std::string& what);

    Clock& clock_;
    TpmEngine& engine_;
    const DeviceProfile& profile_;
    LogFn log_;

    State state_ = State::Idle;
    uint8_t register_ = nuvoton::kRegStatus;
    bool pointer_checked_ = false; // the read that follows a checked register-pointer write
    std::vector<uint8_t> command_;
    std::vector<uint8_t> response_;
    size_t response_pos_ = 0;
    TimePoint ready_at_{};
    TimePoint done_at_{};
    std::optional<TimePoint> last_status_write_;
    std::optional<TimePoint> last_poll_;
    NuvotonTpmStats stats_;
};

} // namespace ksweep::device
