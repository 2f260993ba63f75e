#include "device/tpm_fifo.h"

#include <algorithm>
#include <utility>

namespace ksweep::device {

using namespace tis;

long long whole_micros(Duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

TpmFifo::TpmFifo(Clock& clock, TpmEngine& engine, const DeviceProfile& profile, LogFn log)
    : clock_(clock), engine_(engine), profile_(profile), log_(std::move(log)) {}

void TpmFifo::protocol_error(const std::string& what) {
    if (++stats_.protocol_errors <= kMaxLoggedErrors)
        log_("tpm: protocol error: " + what);
}

void TpmFifo::violation(uint64_t& counter, const std::string& what) {
    if (++counter <= kMaxLoggedErrors)
        log_("tpm: violation: " + what);
}

void TpmFifo::write_status(uint8_t value) {
    TimePoint now = clock_.now();
    advance();
    if (value & kStsCommandReady) {
        bool in_flight = state_ == State::Reception || state_ == State::Execution ||
                         (state_ == State::Completion && response_pos_ < response_.size());
        if (in_flight) {
            ++stats_.aborts;
            log_("tpm: command aborted by commandReady");
        }
        // After a response (TIS: Completion) the chip drops it and goes Idle; from Idle (and
        // on an abort) it gets Ready after the profile's command_ready time. Drivers write
        // commandReady at the end of a command and, finding the chip Idle, again before the
        // next: that second request is what a driver waits for.
        if (state_ == State::Completion) {
            state_ = State::Idle;
        } else {
            if (state_ != State::Ready)
                ready_at_ = now + profile_.command_ready_time;
            state_ = State::Ready;
        }
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

void TpmFifo::go_idle() {
    advance();
    if (state_ == State::Reception || state_ == State::Execution) {
        ++stats_.aborts;
        log_("tpm: command aborted by going idle");
    }
    state_ = State::Idle;
    command_.clear();
    response_.clear();
    response_pos_ = 0;
}

size_t TpmFifo::expected_command_size() const {
    // Until the size field has arrived the chip expects more; a size outside what a command can
    // be is clamped so the FIFO stays bounded and the engine reports the error.
    if (command_.size() < 6)
        return kMaxCommandSize;
    return std::clamp<size_t>(tpm_header_size_field(command_), 10, kMaxCommandSize);
}

void TpmFifo::write_fifo(std::span<const uint8_t> bytes) {
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

void TpmFifo::execute() {
    TimePoint go = clock_.now();
    uint32_t code = tpm_header_code(command_);
    ++stats_.commands;
    ++stats_.commands_by_code[code];
    response_ = engine_.execute(command_);
    response_pos_ = 0;
    done_at_ = go + profile_.execution_time(code);
    go_at_ = go;
    state_ = State::Execution;
    log_("tpm: " + tpm_command_name(code) + " rc=" + std::to_string(tpm_header_code(response_)) +
         " response " + std::to_string(response_.size()) + " bytes, ready in " +
         std::to_string(whole_micros(done_at_ - go)) + " us");
}

void TpmFifo::advance() {
    if (state_ == State::Execution && clock_.now() >= done_at_)
        state_ = State::Completion;
}

bool TpmFifo::executing() {
    advance();
    return state_ == State::Execution;
}

bool TpmFifo::preparing_ready() {
    advance();
    return state_ == State::Ready && clock_.now() < ready_at_;
}

uint8_t TpmFifo::read_status() {
    ++stats_.status_reads;
    stats_.busy_status_reads += executing();
    return status();
}

uint8_t TpmFifo::status() {
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

uint16_t TpmFifo::burst_count() {
    advance();
    switch (state_) {
    case State::Ready:
        return clock_.now() >= ready_at_ ? profile_.burst_count : 0;
    case State::Reception:
        return profile_.burst_count;
    case State::Completion:
        return static_cast<uint16_t>(
            std::min<size_t>(profile_.burst_count, response_.size() - response_pos_));
    default:
        return 0;
    }
}

void TpmFifo::read_fifo(std::span<uint8_t> out) {
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
