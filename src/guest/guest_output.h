// Reading what the validation guest prints on its serial console: boot phases from
// qemu/init.sh ("ksweep-guest: ...") and the extend benchmark's records from
// qemu/extend/tpm_extend.c ("ksweep-extend: ..."). Everything else (firmware, kernel) is noise.
#pragma once

#include "core/sha256.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::guest {

struct ExtendSample {
    std::uint32_t index = 0;
    std::int64_t ns = 0;  // one extend round trip through /dev/tpm0
    std::uint32_t rc = 0; // TPM response code; bit 31 set: the exchange itself failed
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
    bool ended = false; // "end ok=.. failed=.." seen
    bool powered_off = false;

    // The last phase reached, for "hung in phase X" messages.
    std::string last_phase() const;
    // Every requested extend ran, succeeded, and both PCR values were read.
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

    GuestReport report_;
};

// What the guest counted of its HZ next to CONFIG_HZ, for one line: ", the guest counted 248"
// (the HZ Kconfig offers nearest to the count is CONFIG_HZ), ", but the guest counted 990
// (HZ=1000?)" (another one), ", not measured in the guest" (no line from init.sh).
std::string measured_hz_note(const GuestReport& report, int config_hz);

// The whole console output at once.
GuestReport parse_guest_output(std::string_view console);

} // namespace ksweep::guest
