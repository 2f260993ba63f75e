// The Nuvoton NPCT I2C TPM as drivers/char/tpm/tpm_i2c_nuvoton.c drives it: SMBus i2c-block
// transfers whose command byte selects a register, a TIS-like status register, a one-byte burst
// count, FIFOs in and out, and the ID register the probe checks. The command protocol behind
// the registers is the shared TpmFifo; this class is the framing and the register table.
//
// The profile's timing requirements are checked on every access; an access that breaks one is
// NACKed and counted (the driver retries a NACKed status write, and reads a failed status as
// 0x07, so the chip's refusal is what the driver would see on hardware).
#pragma once

#include "device/tpm_fifo.h"
#include "device/tpm_model.h"
#include "device/tpm_registers.h"

#include <cstdint>
#include <optional>

namespace ksweep::device {

namespace nuvoton {
inline constexpr uint16_t kDefaultAddress = 0x2e;

// Registers (the SMBus command byte).
inline constexpr uint8_t kRegStatus = 0x00;
inline constexpr uint8_t kRegBurstCount = 0x01;
inline constexpr uint8_t kRegFifoWrite = 0x20;
inline constexpr uint8_t kRegFifoRead = 0x40;
inline constexpr uint8_t kRegVidDidRid = 0x60;

// TPM_STS bits: the TIS ones.
using tis::kStsCommandReady;
using tis::kStsDataAvail;
using tis::kStsExpect;
using tis::kStsGo;
using tis::kStsResponseRetry;
using tis::kStsValid;

// Vendor 0x1050 (Winbond/Nuvoton), device 0xfe, revision: what the probe compares.
inline constexpr uint8_t kVidDidRid[4] = {0x50, 0x10, 0xfe, 0x00};
} // namespace nuvoton

class NuvotonTpm final : public TpmModel {
  public:
    NuvotonTpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log);

    bool write(std::span<const uint8_t> data) override;
    bool read(std::span<uint8_t> out) override;
    const TpmChipStats& stats() const override { return fifo_.stats(); }

    // TPM_STS as a read now would return it, without counting or checking requirements.
    uint8_t peek_status() { return fifo_.status(); }

  private:
    static const RegisterTable<NuvotonTpm> kRegisters;

    void read_status(std::span<uint8_t> out);
    void write_status(std::span<const uint8_t> data);
    void read_burst_count(std::span<uint8_t> out);
    void write_fifo(std::span<const uint8_t> data);
    void read_fifo(std::span<uint8_t> out);
    void read_id(std::span<uint8_t> out);

    // Checks the profile's timing requirements for an access; false means NACK.
    bool accept_access(bool status_read);

    TpmFifo fifo_;
    Clock& clock_;
    const DeviceProfile& profile_;
    uint8_t register_ = nuvoton::kRegStatus;
    bool pointer_checked_ = false; // the read that follows a checked register-pointer write
    std::optional<TimePoint> last_status_write_;
    std::optional<TimePoint> last_poll_;
};

} // namespace ksweep::device
