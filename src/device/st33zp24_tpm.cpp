#include "device/st33zp24_tpm.h"

#include <algorithm>
#include <utility>

namespace ksweep::device {

using namespace st33zp24;

const RegisterTable<St33zp24Tpm> St33zp24Tpm::kRegisters = {
    {kRegAccess, &St33zp24Tpm::read_access, &St33zp24Tpm::write_access},
    {kRegStatus, &St33zp24Tpm::read_status, &St33zp24Tpm::write_status},
    {kRegBurstCountLow, &St33zp24Tpm::read_burst_count_low, nullptr},
    {kRegBurstCountHigh, &St33zp24Tpm::read_burst_count_high, nullptr},
    {kRegDataFifo, &St33zp24Tpm::read_fifo, &St33zp24Tpm::write_fifo},
};

St33zp24Tpm::St33zp24Tpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log)
    : fifo_(clock, engine, profile, std::move(log)), clock_(clock), profile_(profile) {}

bool St33zp24Tpm::write(std::span<const uint8_t> data) {
    if (data.empty())
        return true; // a zero-length write: an address probe
    uint8_t reg = data[0] & ~kWriteDirection;
    auto payload = data.subspan(1);
    if (!(data[0] & kWriteDirection)) {
        // The register pointer for the read that follows, with the driver's one dummy byte.
        register_ = reg;
        if (payload.size() > 1)
            fifo_.protocol_error("register pointer write with " + std::to_string(payload.size()) +
                                 " bytes after it");
        return true;
    }
    if (payload.empty()) {
        fifo_.protocol_error("register write without data");
        return true;
    }
    if (holds_locality(reg))
        kRegisters.write(*this, fifo_, reg, payload);
    return true;
}

bool St33zp24Tpm::read(std::span<uint8_t> out) {
    if (out.empty())
        return true;
    if (!holds_locality(register_)) {
        std::fill(out.begin(), out.end(), 0xff);
        return true;
    }
    if (register_ == kRegDataFifo) {
        kRegisters.read(*this, fifo_, register_, out);
        return true;
    }
    // The register file: byte i of the message is register pointer + i.
    for (size_t i = 0; i < out.size(); ++i)
        kRegisters.read(*this, fifo_, static_cast<uint8_t>(register_ + i), out.subspan(i, 1));
    return true;
}

bool St33zp24Tpm::holds_locality(uint8_t reg) {
    if (reg == kRegAccess || locality_active_)
        return true;
    fifo_.protocol_error("register " + std::to_string(reg) + " accessed without the locality");
    return false;
}

void St33zp24Tpm::read_access(std::span<uint8_t> out) {
    out[0] = kAccessValid | (locality_active_ ? kAccessActiveLocality : 0);
}

void St33zp24Tpm::write_access(std::span<const uint8_t> data) {
    // One locality and nobody else asking for it: a request is granted at once (the driver:
    // "Request locality is usually effective after the request"); activeLocality written
    // gives it up.
    if (data[0] == kAccessRequestUse)
        locality_active_ = true;
    else if (data[0] == kAccessActiveLocality)
        locality_active_ = false;
    else
        fifo_.protocol_error("TPM_ACCESS write of " + std::to_string(data[0]));
}

void St33zp24Tpm::check_ready_poll() {
    TimePoint now = clock_.now();
    const auto& min = profile_.requirements.min_ready_poll_interval;
    if (min && last_ready_poll_ && now - *last_ready_poll_ < *min)
        fifo_.violation(fifo_.stats().ready_poll_violations,
                        "status poll " + std::to_string(whole_micros(now - *last_ready_poll_)) +
                            " us after one that found commandReady pending "
                            "(min_ready_poll_interval_us " +
                            std::to_string(whole_micros(*min)) + ")");
    if (fifo_.preparing_ready())
        last_ready_poll_ = now;
    else
        last_ready_poll_.reset();
}

void St33zp24Tpm::read_status(std::span<uint8_t> out) {
    check_ready_poll();
    out[0] = fifo_.read_status();
}

void St33zp24Tpm::write_status(std::span<const uint8_t> data) {
    last_ready_poll_.reset(); // a new request: its wait starts over
    fifo_.write_status(data[0]);
}

void St33zp24Tpm::read_burst_count_low(std::span<uint8_t> out) {
    out[0] = static_cast<uint8_t>(fifo_.burst_count());
}

void St33zp24Tpm::read_burst_count_high(std::span<uint8_t> out) {
    out[0] = static_cast<uint8_t>(fifo_.burst_count() >> 8);
}

void St33zp24Tpm::read_fifo(std::span<uint8_t> out) {
    fifo_.read_fifo(out);
}

void St33zp24Tpm::write_fifo(std::span<const uint8_t> data) {
    fifo_.write_fifo(data);
}

} // namespace ksweep::device
