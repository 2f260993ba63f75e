// The STMicroelectronics ST33ZP24 I2C TPM 1.2 as drivers/char/tpm/st33zp24/{st33zp24.c,i2c.c}
// drive it without an IRQ: plain I2C messages, a TIS register file (TPM_ACCESS 0x00, TPM_STS
// 0x18 with the 16-bit burst count at 0x19/0x1a, TPM_DATA_FIFO 0x24) and one locality.
//
// Framing: a write is one message [reg | 0x80, data...]; a read is a message [reg] (the driver
// adds a dummy byte, 0xaa) that sets the register pointer, then a separate read message. A read
// of more than one byte takes consecutive registers, except at the FIFO, which streams.
//
// The command protocol behind TPM_STS and the FIFO is the shared TpmFifo. The driver ignores
// bus errors (a failed status read just reads 0), so the chip acknowledges every message: what
// a driver does wrong (a malformed message, an unknown register, TPM_STS or the FIFO without the
// locality) is a protocol error in the log and the stats, and a broken timing requirement
// (min_ready_poll_interval) is a counted violation, never a NACK.
#pragma once

#include "device/tpm_fifo.h"
#include "device/tpm_model.h"
#include "device/tpm_registers.h"

#include <cstdint>
#include <optional>

namespace ksweep::device {

namespace st33zp24 {
// What Linux's new_device line uses for the chip; the driver accepts any address.
inline constexpr uint16_t kDefaultAddress = 0x13;

// Set in the register byte of a write message (TPM_WRITE_DIRECTION).
inline constexpr uint8_t kWriteDirection = 0x80;

inline constexpr uint8_t kRegAccess = 0x00;
inline constexpr uint8_t kRegStatus = 0x18;
inline constexpr uint8_t kRegBurstCountLow = 0x19;
inline constexpr uint8_t kRegBurstCountHigh = 0x1a;
inline constexpr uint8_t kRegDataFifo = 0x24;

// TPM_ACCESS bits.
inline constexpr uint8_t kAccessValid = 0x80;
inline constexpr uint8_t kAccessActiveLocality = 0x20;
inline constexpr uint8_t kAccessRequestUse = 0x02;
} // namespace st33zp24

class St33zp24Tpm final : public TpmModel {
  public:
    St33zp24Tpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log);

    bool write(std::span<const uint8_t> data) override;
    bool read(std::span<uint8_t> out) override;
    const TpmChipStats& stats() const override { return fifo_.stats(); }

    // As a read now would return them, without counting or checking requirements.
    uint8_t peek_status() { return fifo_.status(); }
    bool locality_active() const { return locality_active_; }

  private:
    static const RegisterTable<St33zp24Tpm> kRegisters;

    void read_access(std::span<uint8_t> out);
    void write_access(std::span<const uint8_t> data);
    void read_status(std::span<uint8_t> out);
    void write_status(std::span<const uint8_t> data);
    void read_burst_count_low(std::span<uint8_t> out);
    void read_burst_count_high(std::span<uint8_t> out);
    void read_fifo(std::span<uint8_t> out);
    void write_fifo(std::span<const uint8_t> data);

    // TPM_STS and the FIFO answer only the locality that holds the chip (TIS: 0xff otherwise).
    bool holds_locality(uint8_t reg);
    void check_ready_poll();

    TpmFifo fifo_;
    Clock& clock_;
    const DeviceProfile& profile_;
    uint8_t register_ = st33zp24::kRegAccess;
    bool locality_active_ = false;
    // The last TPM_STS read that found commandReady requested but not shown yet.
    std::optional<TimePoint> last_ready_poll_;
};

} // namespace ksweep::device
