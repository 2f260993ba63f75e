// The back end's counters, readable by the guest over the same I2C bus at a reserved address
// (0x7f: the 7-bit space's last address, reserved by the I2C specification, so no chip the
// registry describes sits there). A LAVA job's guest reads them at the end of its test and
// reports them as test cases, so the requirement violations the device counted come back with
// the results instead of staying in the worker's stats file.
//
// Any write rewinds; a read returns "name=value name=value ...\n" of the integer counters of
// the stats JSON at the moment of the first byte, then NULs.
#pragma once

#include "device/i2c_bus.h"

#include <functional>
#include <string>

namespace ksweep::device {

inline constexpr uint16_t kStatsAddress = 0x7f;

// "name=value ..." of a stats JSON object's integer fields, in its order; "" if not JSON.
std::string stats_words(const std::string& stats_json);

class StatsDevice final : public I2cDevice {
  public:
    // `snapshot` returns the stats JSON as it is now (format_stats_json and its kin).
    explicit StatsDevice(std::function<std::string()> snapshot) : snapshot_(std::move(snapshot)) {}

    bool write(std::span<const uint8_t> data) override;
    bool read(std::span<uint8_t> out) override;

  private:
    std::function<std::string()> snapshot_;
    std::string text_;
    size_t offset_ = 0;
};

} // namespace ksweep::device
