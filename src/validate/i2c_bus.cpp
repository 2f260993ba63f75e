#include "validate/i2c_bus.h"

#include <cerrno>
#include <ctime>

namespace ksweep::device {

void MonotonicClock::sleep_until(TimePoint when) {
    auto ns = when.time_since_epoch().count();
    timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
    // steady_clock is CLOCK_MONOTONIC on Linux; an absolute sleep survives EINTR retries.
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

bool I2cBus::attach(uint16_t address, I2cDevice& device) {
    if (address > 0x7f || devices_.count(address))
        return false;
    devices_[address] = &device;
    return true;
}

I2cDevice* I2cBus::find(uint16_t address) {
    auto it = devices_.find(address);
    return it == devices_.end() ? nullptr : it->second;
}

void I2cBus::occupy(size_t bytes) {
    if (per_byte_ > Duration::zero())
        clock_.sleep_until(clock_.now() + per_byte_ * static_cast<int64_t>(bytes + 1));
}

bool I2cBus::write(uint16_t address, std::span<const uint8_t> data) {
    occupy(data.size());
    I2cDevice* device = find(address);
    bool acked = device && device->write(data);
    nacks_ += !acked;
    return acked;
}

bool I2cBus::read(uint16_t address, std::span<uint8_t> data) {
    occupy(data.size());
    I2cDevice* device = find(address);
    bool acked = device && device->read(data);
    nacks_ += !acked;
    return acked;
}

} // namespace ksweep::device
