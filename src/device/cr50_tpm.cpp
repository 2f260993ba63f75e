#include "device/cr50_tpm.h"

#include <algorithm>
#include <utility>

namespace ksweep::device {

using namespace cr50;

const RegisterTable<Cr50Tpm> Cr50Tpm::kRegisters = {
    {kRegAccess, &Cr50Tpm::read_access, &Cr50Tpm::write_access},
    {kRegStatus, &Cr50Tpm::read_status, &Cr50Tpm::write_status},
    {kRegDataFifo, &Cr50Tpm::read_fifo, &Cr50Tpm::write_fifo},
    {kRegDidVid, &Cr50Tpm::read_did_vid, nullptr},
};

Cr50Tpm::Cr50Tpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log)
    : fifo_(clock, engine, profile, std::move(log)), clock_(clock), profile_(profile) {}

bool Cr50Tpm::busy() const {
    return last_fifo_write_ && clock_.now() < *last_fifo_write_ + profile_.busy_after_fifo_write;
}

std::optional<uint8_t> Cr50Tpm::reg_of(uint8_t address) {
    if (address >> kLocalityShift) {
        fifo_.protocol_error("register " + std::to_string(address & 0x0f) + " of locality " +
                             std::to_string(address >> kLocalityShift) +
                             " (the cr50 has only locality 0)");
        return std::nullopt;
    }
    return address;
}

bool Cr50Tpm::write(std::span<const uint8_t> data) {
    if (data.empty())
        return true; // a zero-length write: an address probe
    if (busy()) {
        ++fifo_.stats().nacks;
        return false;
    }
    if (data.size() > kMaxMessage)
        fifo_.protocol_error("write of " + std::to_string(data.size()) + " bytes (at most 64)");
    if (auto reg = reg_of(data[0])) {
        if (*reg == kRegStatus)
            check_ready_write_gap();
        register_ = *reg;
        if (data.size() > 1)
            kRegisters.write(*this, fifo_, *reg, data.subspan(1));
    } else {
        register_ = data[0];
    }
    // Taken in: the chip pulses its interrupt line once it is ready for the next message.
    if (interrupt_) {
        clock_.sleep_until(clock_.now() + profile_.interrupt_delay);
        interrupt_->pulse_low();
    }
    return true;
}

bool Cr50Tpm::read(std::span<uint8_t> out) {
    if (out.empty())
        return true;
    if (busy()) {
        ++fifo_.stats().nacks;
        return false;
    }
    if (register_ >> kLocalityShift) {
        std::fill(out.begin(), out.end(), 0xff);
        return true;
    }
    kRegisters.read(*this, fifo_, register_, out);
    return true;
}

bool Cr50Tpm::locality_active() const {
    return locality_granted_at_ && clock_.now() >= *locality_granted_at_;
}

void Cr50Tpm::read_access(std::span<uint8_t> out) {
    std::fill(out.begin(), out.end(), 0);
    bool active = locality_active();
    out[0] = kAccessValid | (active ? kAccessActiveLocality : 0) |
             (active && profile_.access_request_pending ? kAccessRequestPending : 0);
}

void Cr50Tpm::write_access(std::span<const uint8_t> data) {
    if (data[0] == kAccessRequestUse) {
        if (!locality_granted_at_)
            locality_granted_at_ = clock_.now() + profile_.locality_grant_time;
    } else if (data[0] == kAccessActiveLocality) {
        // Released: as the firmware, whatever the chip was doing is dropped.
        locality_granted_at_.reset();
        fifo_.go_idle();
    } else {
        fifo_.protocol_error("TPM_ACCESS write of " + std::to_string(data[0]));
    }
}

void Cr50Tpm::check_ready_write_gap() {
    const auto& min = profile_.requirements.min_ready_write_gap;
    if (min && last_ready_write_) {
        Duration gap = clock_.now() - *last_ready_write_;
        if (gap < *min)
            fifo_.violation(fifo_.stats().ready_write_gap_violations,
                            "TPM_STS access " + std::to_string(whole_micros(gap)) +
                                " us after commandReady was written (min_ready_write_gap_us " +
                                std::to_string(whole_micros(*min)) + ")");
    }
    last_ready_write_.reset();
}

void Cr50Tpm::read_status(std::span<uint8_t> out) {
    if (out.size() != kStatusSize)
        fifo_.protocol_error("TPM_STS read of " + std::to_string(out.size()) +
                             " bytes (the cr50 needs all 4 at once)");
    uint16_t burst = fifo_.burst_count();
    if (burst == 0) // no response bytes pending: the firmware offers a full write burst
        burst = profile_.burst_count;
    if (last_fifo_write_ && clock_.now() < *last_fifo_write_ + profile_.no_burst_after_fifo_write)
        burst = 0;
    const uint8_t value[kStatusSize] = {fifo_.read_status(), static_cast<uint8_t>(burst),
                                        static_cast<uint8_t>(burst >> 8), kStatusFamilyTpm2};
    std::fill(out.begin(), out.end(), 0);
    std::copy_n(value, std::min(out.size(), kStatusSize), out.begin());
}

void Cr50Tpm::write_status(std::span<const uint8_t> data) {
    if (data.size() != kStatusSize)
        fifo_.protocol_error("TPM_STS write of " + std::to_string(data.size()) +
                             " bytes (the cr50 needs all 4 at once)");
    if (data[0] & tis::kStsCommandReady)
        last_ready_write_ = clock_.now();
    fifo_.write_status(data[0]);
}

void Cr50Tpm::read_fifo(std::span<uint8_t> out) {
    fifo_.read_fifo(out);
}

void Cr50Tpm::write_fifo(std::span<const uint8_t> data) {
    last_fifo_write_ = clock_.now();
    fifo_.write_fifo(data);
}

void Cr50Tpm::read_did_vid(std::span<uint8_t> out) {
    std::fill(out.begin(), out.end(), 0);
    for (size_t i = 0; i < std::min<size_t>(out.size(), 4); ++i)
        out[i] = static_cast<uint8_t>(kDidVid >> (8 * i));
}

} // namespace ksweep::device
