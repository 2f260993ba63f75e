#include "device/nuvoton_tpm.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace ksweep::device {

using namespace nuvoton;

const RegisterTable<NuvotonTpm> NuvotonTpm::kRegisters = {
    {kRegStatus, &NuvotonTpm::read_status, &NuvotonTpm::write_status},
    {kRegBurstCount, &NuvotonTpm::read_burst_count, nullptr},
    {kRegFifoWrite, nullptr, &NuvotonTpm::write_fifo},
    {kRegFifoRead, &NuvotonTpm::read_fifo, nullptr},
    {kRegVidDidRid, &NuvotonTpm::read_id, nullptr},
};

NuvotonTpm::NuvotonTpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log)
    : fifo_(clock, engine, profile, std::move(log)), clock_(clock), profile_(profile) {}

bool NuvotonTpm::accept_access(bool status_read) {
    TimePoint now = clock_.now();
    const auto& req = profile_.requirements;
    TpmChipStats& stats = fifo_.stats();
    if (req.min_status_gap && last_status_write_ &&
        now - *last_status_write_ < *req.min_status_gap) {
        ++stats.nacks;
        fifo_.violation(stats.status_gap_violations,
                        "access " + std::to_string(whole_micros(now - *last_status_write_)) +
                            " us after a status write (min_status_gap_us " +
                            std::to_string(whole_micros(*req.min_status_gap)) + "): NACK");
        return false;
    }
    if (status_read) {
        // GO is the first access of the execution's polling.
        if (fifo_.executing() && req.min_poll_interval) {
            TimePoint previous = std::max(last_poll_.value_or(fifo_.last_go()), fifo_.last_go());
            if (now - previous < *req.min_poll_interval) {
                ++stats.nacks;
                fifo_.violation(stats.poll_interval_violations,
                                "status poll " + std::to_string(whole_micros(now - previous)) +
                                    " us after the previous one (min_poll_interval_us " +
                                    std::to_string(whole_micros(*req.min_poll_interval)) +
                                    "): NACK");
                last_poll_ = now; // the chip restarts its interval on every poll it sees
                return false;
            }
        }
        last_poll_ = now;
    }
    return true;
}

bool NuvotonTpm::write(std::span<const uint8_t> data) {
    pointer_checked_ = false;
    if (data.empty())
        return true; // a zero-length write: an address probe (i2cdetect -q)
    uint8_t reg = data[0];
    auto payload = data.subspan(1);
    if (!accept_access(payload.empty() && reg == kRegStatus))
        return false;
    register_ = reg;
    if (payload.empty()) {
        pointer_checked_ = true; // the register pointer for the read that follows
        return true;
    }
    kRegisters.write(*this, fifo_, reg, payload);
    return true;
}

bool NuvotonTpm::read(std::span<uint8_t> out) {
    bool checked = std::exchange(pointer_checked_, false);
    if (!checked && !accept_access(register_ == kRegStatus))
        return false;
    std::fill(out.begin(), out.end(), 0);
    if (out.empty())
        return true;
    kRegisters.read(*this, fifo_, register_, out);
    return true;
}

void NuvotonTpm::read_status(std::span<uint8_t> out) {
    out[0] = fifo_.read_status();
}

void NuvotonTpm::write_status(std::span<const uint8_t> data) {
    last_status_write_ = clock_.now();
    fifo_.write_status(data[0]);
}

void NuvotonTpm::read_burst_count(std::span<uint8_t> out) {
    out[0] = static_cast<uint8_t>(fifo_.burst_count());
}

void NuvotonTpm::write_fifo(std::span<const uint8_t> data) {
    fifo_.write_fifo(data);
}

void NuvotonTpm::read_fifo(std::span<uint8_t> out) {
    fifo_.read_fifo(out);
}

void NuvotonTpm::read_id(std::span<uint8_t> out) {
    std::memcpy(out.data(), kVidDidRid, std::min(out.size(), sizeof kVidDidRid));
}

} // namespace ksweep::device
