// The one model of every device file (device_spec.h): the I2C protocol once, the chip a table.
// A register file of byte addresses (a pointer byte, or command bytes that set where data and
// reads go), registers of 1-8 bytes in either byte order, and the file's rules: what a write,
// read or command does to other registers at once or after a delay of the profile (a
// conversion that sets a ready bit), a busy period in which the chip reads a fixed byte or
// NACKs, clear-on-read bits and queued read values (a self-test that reads 0xAA once).
//
// Time is the profile's: each rule's delay is drawn from its typical time and spread with the
// profile's seed, and the timing requirements it states (min_poll_interval: reads of a register
// a pending rule will change at least this far apart; min_write_idle: no access this soon
// after a write that made the chip busy) are counted as violations, never NACKed: what the chip
// then does is the file's (its busy reads). Rules due are applied before every message, so a
// chip nobody talks to needs no timer.
#pragma once

#include "device/device_profile.h"
#include "device/device_spec.h"
#include "device/i2c_bus.h"
#include "device/tpm_chip_stats.h"

#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

struct TableDeviceStats {
    uint64_t messages = 0, reads = 0, writes = 0;
    uint64_t nacks = 0;
    uint64_t busy_accesses = 0;   // messages while the chip was busy (answered by its busy rule)
    uint64_t rules_fired = 0;     // rules triggered (a write, read or command matched one)
    uint64_t protocol_errors = 0; // unmapped addresses, unknown commands, data nowhere to go
    uint64_t poll_interval_violations = 0;
    uint64_t write_idle_violations = 0;

    uint64_t violations_of(Requirement requirement) const;
    uint64_t violations() const { return poll_interval_violations + write_idle_violations; }
};

// The requirements the table model checks (a profile stating another is refused).
std::span<const Requirement> table_device_checks();

// Why `profile` cannot drive `spec` ("" when it can): a delay the rules name that the profile
// lacks, or a requirement the model does not check.
std::string table_profile_mismatch(const DeviceSpec& spec, const DeviceProfile& profile);

// The stats file's JSON and the log's line, like the TPMs' (tpm_chip_stats.h) with the
// chip's own counters.
std::string format_table_stats_json(const std::string& profile, const TableDeviceStats& s,
                                    const TransportStats& x);
std::string format_table_stats_line(const TableDeviceStats& s, const TransportStats& x);

class TableDevice final : public I2cDevice {
  public:
    // `spec` and `profile` must outlive the device; table_profile_mismatch() must be "".
    TableDevice(Clock& clock, const DeviceSpec& spec, const DeviceProfile& profile, LogFn log);

    bool write(std::span<const uint8_t> data) override;
    bool read(std::span<uint8_t> out) override;

    const TableDeviceStats& stats() const { return stats_; }
    // A register's value now (rules due applied), for tests; nullopt for an unknown name.
    std::optional<uint64_t> value(const std::string& name);
    bool busy();

  private:
    struct Register {
        const RegisterSpec* spec;
        uint64_t value;
        std::deque<uint64_t> queued; // `reads` values, returned before `value`
        std::optional<TimePoint> last_poll;
    };
    struct Pending {
        TimePoint due;
        const RuleSpec* rule;
    };

    uint8_t byte_of(const Register& r, uint64_t value, unsigned index) const;
    void set_byte(Register& r, unsigned index, uint8_t byte);
    Register* reg(const std::string& name);
    // Applies what the rules due by now do, in the order they fell due.
    void apply_due();
    void apply(const RuleSpec& rule);
    void fire(const RuleSpec& rule, TimePoint now);
    void fire_writes(const std::vector<Register*>& written, uint8_t command, bool is_command);
    // False when the busy chip NACKs; counts the requirement a message this early breaks.
    bool admit(bool is_read, bool& answered_busy);
    void check_poll(Register& r, TimePoint now);
    bool pending_changes(const Register& r) const;
    Duration draw(const RuleSpec& rule);
    void write_bytes(uint8_t address, std::span<const uint8_t> bytes,
                     std::vector<Register*>& written);
    void protocol_error(const std::string& what);
    void violation(uint64_t& counter, const std::string& what);

    Clock& clock_;
    const DeviceSpec& spec_;
    const DeviceProfile& profile_;
    LogFn log_;
    std::mt19937_64 random_;
    std::vector<Register> registers_;
    // Byte address -> (register index, byte index) for reads and for writes; -1: none.
    std::array<std::pair<int, unsigned>, 256> read_map_, write_map_;
    uint8_t pointer_ = 0;
    std::vector<Pending> pending_;
    TimePoint busy_until_{};
    const RuleSpec* busy_rule_ = nullptr;
    std::optional<TimePoint> idle_from_; // the write that made the chip busy, for min_write_idle
    TableDeviceStats stats_;
};

} // namespace ksweep::device
