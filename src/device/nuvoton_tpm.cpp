#include "device/nuvoton_tpm.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace ksweep::device {

using namespace nuvoton;

namespace {

// Enough to see what went wrong without flooding the log of a long run.
constexpr uint64_t kMaxLoggedErrors = 20;

long long micros(Duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

} // namespace

NuvotonTpm::NuvotonTpm(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log)
    : clock_(clock), engine_(engine), profile_(profile), log_(std::move(log)) {}

void NuvotonTpm::protocol_error(const std::string& what) {
    if (++stats_.protocol_errors <= kMaxLoggedErrors)
        log_("tpm: protocol error: " + what);
}

bool NuvotonTpm::accept_access(bool status_read) {
    TimePoint now = clock_.now();
    const auto& req = profile_.requirements;
    if (req.min_status_gap && last_status_write_ &&
        now - *last_status_write_ < *req.min_status_gap) {
        ++stats_.nacks;
        if (++stats_.status_gap_violations <= kMaxLoggedErrors)
            log_("tpm: violation: access " + std::to_string(micros(now - *last_status_write_)) +
                 " us after a status write (min_status_gap_us " +
                 std::to_string(micros(*req.min_status_gap)) + "): NACK");
        return false;
    }
    if (status_read) {
        advance();
        if (state_ == State::Execution && req.min_poll_interval && last_poll_ &&
            now - *last_poll_ < *req.min_poll_interval) {
            ++stats_.nacks;
            if (++stats_.poll_interval_violations <= kMaxLoggedErrors)
                log_("tpm: violation: status poll " + std::to_string(micros(now - *last_poll_)) +
                     " us after the previous one (min_poll_interval_us " +
                     std::to_string(micros(*req.min_poll_interval)) + "): NACK");
            last_poll_ = now; // the chip restarts its interval on every poll it sees
            return false;
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
    bool status_read = payload.empty() && reg == kRegStatus;
    if (!accept_access(status_read))
        return false;
    register_ = reg;
    if (payload.empty()) {
        pointer_checked_ = true; // the register pointer for the read that follows
        return true;
    }
    switch (reg) {
    case kRegStatus:
        write_status(payload[0]);
        break;
    case kRegFifoWrite:
        write_fifo(payload);
        break;
    default:
        protocol_error("write to read-only or unknown register " + std::to_string(reg));
    }
    return true;
}

bool NuvotonTpm::read(std::span<uint8_t> out) {
    bool checked = std::exchange(pointer_checked_, false);
    if (!checked && !accept_access(register_ == kRegStatus))
        return false;
    std::fill(out.begin(), out.end(), 0);
    if (out.empty())
        return true;
    switch (register_) {
    case kRegStatus:
        out[0] = status();
        ++stats_.status_reads;
        stats_.busy_status_reads += state_ == State::Execution;
        break;
    case kRegBurstCount:
        out[0] = burst_count();
        break;
    case kRegFifoRead:
        read_fifo(out);
        break;
    case kRegVidDidRid:
        std::memcpy(out.data(), kVidDidRid, std::min(out.size(), sizeof kVidDidRid));
        break;
    default:
        std::fill(out.begin(), out.end(), 0xff);
    }
    return true;
}

void NuvotonTpm::write_status(uint8_t value) {
    TimePoint now = clock_.now();
    last_status_write_ = now;
    advance();
    if (value & kStsCommandReady) {
        bool in_flight = state_ == State::Reception || state_ == State::Execution ||
                         (state_ == State::Completion && response_pos_ < response_.size());
        if (in_flight) {
            ++stats_.aborts;
            log_("tpm: command aborted by commandReady");
        }
        if (state_ != State::Ready)
            ready_at_ = now + profile_.command_ready_time;
        state_ = State::Ready;
        command_.clear();
        response_.clear();
        response_pos_ = 0;
    } else if (value & kStsGo) {
        if (state_ != State::Reception || command_.size() != expected_command_size())
            protocol_error("GO without a complete command");
        else
            execute();
    } else if (value & kStsResponseRetry) {
        if (state_ != State::Completion) {
            protocol_error("responseRetry without a response");
        } else {
            ++stats_.response_retries;
            response_pos_ = 0;
        }
    }
}

size_t NuvotonTpm::expected_command_size() const {
    // Until the size field has arrived the chip expects more; a size outside what a TPM 2.0
    // command can be is clamped so the FIFO stays bounded and the engine reports the error.
    if (command_.size() < 6)
        return kMaxCommandSize;
    return std::clamp<size_t>(tpm_header_size_field(command_), 10, kMaxCommandSize);
}

void NuvotonTpm::write_fifo(std::span<const uint8_t> bytes) {
    advance();
    if (state_ == State::Ready) {
        if (clock_.now() < ready_at_) {
            protocol_error("FIFO write before commandReady");
            return;
        }
        state_ = State::Reception;
        command_.clear();
    }
    if (state_ != State::Reception) {
        protocol_error("FIFO write outside command reception");
        return;
    }
    for (uint8_t b : bytes) {
        if (command_.size() >= expected_command_size()) {
            protocol_error("FIFO write past the end of the command");
            return;
        }
        command_.push_back(b);
    }
}

void NuvotonTpm::execute() {
    TimePoint go = clock_.now();
    uint32_t code = tpm_header_code(command_);
    ++stats_.commands;
    ++stats_.commands_by_code[code];
    response_ = engine_.execute(command_);
    response_pos_ = 0;
    done_at_ = go + profile_.execution_time(code);
    last_poll_ = go; // GO is the first access of the execution's polling
    state_ = State::Execution;
    log_("tpm: " + tpm2_command_name(code) + " rc=" + std::to_string(tpm_header_code(response_)) +
         " response " + std::to_string(response_.size()) + " bytes, ready in " +
         std::to_string(micros(done_at_ - go)) + " us");
}

void NuvotonTpm::advance() {
    if (state_ == State::Execution && clock_.now() >= done_at_)
        state_ = State::Completion;
}

uint8_t NuvotonTpm::status() {
    advance();
    switch (state_) {
    case State::Idle:
    case State::Execution:
        return kStsValid;
    case State::Ready:
        return clock_.now() >= ready_at_ ? kStsValid | kStsCommandReady : kStsValid;
    case State::Reception:
        return command_.size() < expected_command_size() ? kStsValid | kStsExpect : kStsValid;
    case State::Completion:
        return response_pos_ < response_.size() ? kStsValid | kStsDataAvail : kStsValid;
    }
    return kStsValid;
}

uint8_t NuvotonTpm::peek_status() {
    return status();
}

uint8_t NuvotonTpm::burst_count() {
    advance();
    switch (state_) {
    case State::Ready:
        return clock_.now() >= ready_at_ ? profile_.burst_count : 0;
    case State::Reception:
        return profile_.burst_count;
    case State::Completion:
        return static_cast<uint8_t>(
            std::min<size_t>(profile_.burst_count, response_.size() - response_pos_));
    default:
        return 0;
    }
}

void NuvotonTpm::read_fifo(std::span<uint8_t> out) {
    advance();
    size_t available = state_ == State::Completion ? response_.size() - response_pos_ : 0;
    size_t n = std::min(out.size(), available);
    std::copy_n(response_.begin() + response_pos_, n, out.begin());
    response_pos_ += n;
    if (n < out.size()) {
        std::fill(out.begin() + n, out.end(), 0xff);
        protocol_error("FIFO read past the end of the response");
    }
}

} // namespace ksweep::device
