// Google's cr50 (H1) TPM 2.0 behind I2C, as drivers/char/tpm/tpm_tis_i2c_cr50.c drives it: a
// register file addressed by one byte (TPM_ACCESS 0x00, TPM_STS 0x01 with its 4 bytes read and
// written at once, the burst count in bytes 1-2, TPM_DATA_FIFO 0x05, TPM_DID_VID 0x06), the
// locality in the address's high nibble (only 0 exists), and an interrupt line (INT_AP_L) the
// chip pulses low after every write it has taken in, which tells the driver it may go on.
//
// Framing: a write is one message [reg, data...] of at most 64 bytes; a read is a message [reg]
// (the register is remembered across the stop), then, after the interrupt or the driver's
// fixed 20 ms without one, a separate read message. The FIFO streams; the first read of a
// response takes exactly the burst count. The command protocol behind TPM_STS and the FIFO is
// the shared TpmFifo, with the cr50 firmware's ways: commandReady written after a response
// takes the chip Idle (not Ready), the burst count is 63 whenever no response bytes are
// pending, and releasing the locality drops everything.
//
// The profile's chip switches (docs/cr50.md) make the driver take each of its polling paths:
// a locality granted late while another locality's request is pending (request_locality's poll),
// a chip busy after a FIFO write (NACKs: get_burst_and_status's failed read), a burst count of
// 0 after a FIFO write (its burst check). The driver's fourth, set_ready's sleep, happens with
// every command. min_ready_write_gap is the requirement the 2 ms sleep after commandReady may
// break; a broken one is counted and logged, and the chip still answers.
#pragma once

#include "device/interrupt_line.h"
#include "device/tpm_fifo.h"
#include "device/tpm_model.h"
#include "device/tpm_registers.h"

#include <cstdint>
#include <optional>

namespace ksweep::device {

namespace cr50 {
// Where Chromebooks have it; the driver takes any address.
inline constexpr uint16_t kDefaultAddress = 0x50;

inline constexpr uint8_t kRegAccess = 0x00;
inline constexpr uint8_t kRegStatus = 0x01;
inline constexpr uint8_t kRegDataFifo = 0x05;
inline constexpr uint8_t kRegDidVid = 0x06;
inline constexpr unsigned kLocalityShift = 4;

inline constexpr uint8_t kAccessValid = 0x80;
inline constexpr uint8_t kAccessActiveLocality = 0x20;
inline constexpr uint8_t kAccessRequestPending = 0x04;
inline constexpr uint8_t kAccessRequestUse = 0x02;

inline constexpr uint32_t kDidVid = 0x00281ae0; // device 0x0028, vendor Google 0x1ae0
inline constexpr size_t kStatusSize = 4;
inline constexpr size_t kMaxMessage = 64;          // the driver's TPM_CR50_MAX_BUFSIZE
inline constexpr uint8_t kStatusFamilyTpm2 = 0x04; // TPM_STS bits 26-27: TPM 2.0
} // namespace cr50

class Cr50Tpm final : public TpmModel {
  public:
    Cr50Tpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log);

    bool write(std::span<const uint8_t> data) override;
    bool read(std::span<uint8_t> out) override;
    const TpmChipStats& stats() const override { return fifo_.stats(); }
    // The line the chip pulses after each write it took in; without one (a board without the
    // wire) the driver waits its fixed 20 ms instead.
    bool wire_interrupt(InterruptLine& line) override {
        interrupt_ = &line;
        return true;
    }

  private:
    static const RegisterTable<Cr50Tpm> kRegisters;

    void read_access(std::span<uint8_t> out);
    void write_access(std::span<const uint8_t> data);
    void read_status(std::span<uint8_t> out);
    void write_status(std::span<const uint8_t> data);
    void read_fifo(std::span<uint8_t> out);
    void write_fifo(std::span<const uint8_t> data);
    void read_did_vid(std::span<uint8_t> out);

    bool locality_active() const;
    bool busy() const;
    // Splits an address byte into the register and checks its locality.
    std::optional<uint8_t> reg_of(uint8_t address);
    void check_ready_write_gap();

    TpmFifo fifo_;
    Clock& clock_;
    const DeviceProfile& profile_;
    InterruptLine* interrupt_ = nullptr;
    uint8_t register_ = cr50::kRegAccess;
    std::optional<TimePoint> locality_granted_at_; // set: requested; active from then on
    std::optional<TimePoint> last_fifo_write_;
    std::optional<TimePoint> last_ready_write_; // commandReady written, no TPM_STS access since
};

} // namespace ksweep::device
