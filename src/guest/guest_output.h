// Reading what the validation guest prints on its serial console: boot phases from
// qemu/init.sh ("ksweep-guest: ..."), the extend benchmark's records from
// qemu/extend/tpm_extend.c ("ksweep-extend: ...") and a device file's operation from
// qemu/op/ksweep_op.c ("ksweep-op: ..."). Everything else (firmware, kernel) is noise.
#pragma once

#include "core/sha256.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::guest {

// One timed operation: a TPM extend, or a device file's operation (a sysfs read, an ioctl).
struct ExtendSample {
    std::uint32_t index = 0;
    std::int64_t ns = 0;  // one extend round trip through /dev/tpm0, or one operation
    std::uint32_t rc = 0; // TPM response code; bit 31 set: the exchange itself failed; an
                          // operation's errno
};

struct GuestReport {
    std::vector<std::string> phases;        // "init ...", "modules", "probe ...", ..., "poweroff"
    std::vector<std::string> modules;       // loaded, in order
    std::vector<std::string> errors;        // the guest's own error lines
    std::vector<std::string> dmesg;         // the kernel lines init.sh forwards at the end
    std::optional<int> tpm_version;         // /dev/tpm0's TPM major version (1 or 2)
    std::optional<int> measured_hz;         // jiffies per second of the guest's clock (init.sh)
    std::optional<std::uint32_t> requested; // "begin n=N"
    std::optional<std::uint32_t> reset_rc;
    std::optional<Bytes> pcr_initial, pcr_final; // PCR 16, in the benchmark's bank
    std::vector<ExtendSample> samples;
    // A device file's operation ("ksweep-op: begin"): no PCR, a value per sample instead.
    bool operation = false;
    std::vector<std::string> values; // what each operation read, in sample order
    std::string client;              // the bound client's sysfs name ("0-000e"), from init.sh
    std::vector<std::string> operation_dmesg; // kernel lines logged while the operation ran
    bool ended = false;                       // "end ok=.. failed=.." seen
    bool powered_off = false;

    // The last phase reached, for "hung in phase X" messages.
    std::string last_phase() const;
    // Every requested extend ran, succeeded, and both PCR values were read (an operation: every
    // one ran and succeeded).
    bool complete() const;
    std::uint32_t failed_extends() const;
};

// Incremental: the runner feeds console lines as they arrive and shows phases as progress.
class GuestOutputParser {
  public:
    // One console line (a trailing '\r' is ignored). Returns true if it was one of ours.
    bool feed_line(std::string_view line);
    const GuestReport& report() const { return report_; }

  private:
    void on_guest(std::string_view rest);
    void on_extend(std::string_view rest);
    void on_operation(std::string_view rest);

    GuestReport report_;
};

// What the guest counted of its HZ next to CONFIG_HZ, for one line: ", the guest counted 248"
// (the HZ Kconfig offers nearest to the count is CONFIG_HZ), ", but the guest counted 990
// (HZ=1000?)" (another one), ", not measured in the guest" (no line from init.sh).
std::string measured_hz_note(const GuestReport& report, int config_hz);

// The whole console output at once.
GuestReport parse_guest_output(std::string_view console);

// The operation's first failure in one line, with what the driver said about it: "read 3
// failed: errno 110 (Connection timed out); the driver: ak8974 0-000e: timeout waiting for
// DRDY". "" when no operation failed.
std::string first_operation_failure(const GuestReport& report);

} // namespace ksweep::guest
