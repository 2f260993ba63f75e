// The command/response FIFO of a TCG TIS-style TPM, the part every model here shares: TPM_STS
// writes (commandReady, GO, responseRetry), its bits (stsValid, commandReady, dataAvail,
// Expect), the burst count and the data FIFO in both directions. Each model keeps one and maps
// its own registers and bus framing onto it (nuvoton_tpm.h, st33zp24_tpm.h) through a
// RegisterTable (tpm_registers.h): the protocol once, each chip a thin table of register
// handlers.
//
// Commands finish asynchronously, as on a chip: GO hands the command to the engine at once, but
// TPM_STS shows dataAvail only once the profile's execution time has passed on the clock; a
// commandReady request shows after the profile's command_ready time. As in the TIS state
// machine, commandReady written after a response takes the chip to Idle, not Ready.
#pragma once

#include "device/device_profile.h"
#include "device/i2c_bus.h"
#include "device/tpm_chip_stats.h"
#include "device/tpm_engine.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

namespace tis {
// TPM_STS bits, the same in the TIS FIFO interface and the Nuvoton chip.
inline constexpr uint8_t kStsValid = 0x80;
inline constexpr uint8_t kStsCommandReady = 0x40;
inline constexpr uint8_t kStsGo = 0x20;
inline constexpr uint8_t kStsDataAvail = 0x10;
inline constexpr uint8_t kStsExpect = 0x08;
inline constexpr uint8_t kStsResponseRetry = 0x02;

inline constexpr size_t kMaxCommandSize = 4096;
} // namespace tis

class TpmFifo {
  public:
    TpmFifo(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log);

    // A write of `value` to TPM_STS.
    void write_status(uint8_t value);
    // Drops any command or response and goes Idle (a cr50 whose locality is released).
    void go_idle();
    // Bytes written to the data FIFO (command reception).
    void write_fifo(std::span<const uint8_t> bytes);
    // Bytes read from the data FIFO (the response); past its end they read 0xff.
    void read_fifo(std::span<uint8_t> out);

    uint8_t status();       // TPM_STS as a read now returns it
    uint8_t read_status();  // the same, for a driver's read: counted in the stats
    uint16_t burst_count(); // FIFO bytes the chip takes or offers now (0: none)
    bool executing();       // between GO and the end of the execution time
    bool preparing_ready(); // commandReady requested, not shown yet (command_ready time)
    TimePoint last_go() const { return go_at_; }

    // Counted, and logged for the first few: what the driver did makes no sense in this state.
    void protocol_error(const std::string& what);
    // A broken timing requirement: `counter` counted, the first few logged ("tpm: violation:").
    void violation(uint64_t& counter, const std::string& what);
    // The chip's counters: the FIFO counts commands and protocol errors, the model the rest.
    TpmChipStats& stats() { return stats_; }
    const TpmChipStats& stats() const { return stats_; }

  private:
    enum class State { Idle, Ready, Reception, Execution, Completion };

    void execute();
    void advance(); // Execution -> Completion once the execution time has passed
    size_t expected_command_size() const;

    Clock& clock_;
    TpmEngine& engine_;
    const DeviceProfile& profile_;
    LogFn log_;

    State state_ = State::Idle;
    std::vector<uint8_t> command_;
    std::vector<uint8_t> response_;
    size_t response_pos_ = 0;
    TimePoint ready_at_{};
    TimePoint done_at_{};
    TimePoint go_at_{};
    TpmChipStats stats_;
};

// Enough to see what went wrong without flooding the log of a long run.
inline constexpr uint64_t kMaxLoggedErrors = 20;

// Whole microseconds, for log lines.
long long whole_micros(Duration d);

} // namespace ksweep::device
