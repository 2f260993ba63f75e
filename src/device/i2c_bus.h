// An I2C bus: devices attached at 7-bit addresses, messages routed by address. A message to an
// address nobody answers fails the way a missing ACK does on a real bus.
#pragma once

#include "device/i2c_bus_clock.h"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <utility>

namespace ksweep::device {

// Where the back end's components write their one-line log messages.
using LogFn = std::function<void(const std::string&)>;

// One message as it crossed the bus: when it started, to whom, which way, the bytes (for a
// read, what the device returned) and whether it was acknowledged.
struct I2cMessage {
    TimePoint start;
    uint16_t address;
    bool read;
    std::span<const uint8_t> data;
    bool acked;
};
using I2cTraceFn = std::function<void(const I2cMessage&)>;

// A target on the bus. Each call is one I2C message (START, address, data); returning false
// means the device did not acknowledge it.
class I2cDevice {
  public:
    virtual ~I2cDevice() = default;
    virtual bool write(std::span<const uint8_t> data) = 0;
    virtual bool read(std::span<uint8_t> data) = 0;
};

class I2cBus {
  public:
    // `per_byte` is the wire time of one byte (address byte included); each message occupies
    // the bus that long before its result is returned.
    explicit I2cBus(Clock& clock, Duration per_byte = Duration::zero())
        : clock_(clock), per_byte_(per_byte) {}

    // False if the address is not a valid 7-bit address or is taken.
    bool attach(uint16_t address, I2cDevice& device);

    bool write(uint16_t address, std::span<const uint8_t> data);
    bool read(uint16_t address, std::span<uint8_t> data);

    uint64_t nacks() const { return nacks_; }
    // Every message is passed to `trace` after it completed (ksweep-tpmd --trace).
    void set_trace(I2cTraceFn trace) { trace_ = std::move(trace); }

  private:
    I2cDevice* find(uint16_t address);
    void occupy(size_t bytes);

    Clock& clock_;
    Duration per_byte_;
    std::map<uint16_t, I2cDevice*> devices_;
    uint64_t nacks_ = 0;
    I2cTraceFn trace_;
};

} // namespace ksweep::device
