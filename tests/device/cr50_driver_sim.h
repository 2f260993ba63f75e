// The register-level conversation drivers/char/tpm/tpm_tis_i2c_cr50.c (Linux 6.1 and 6.12) has
// with the chip, replayed over an I2cBus with a manual clock: a read is a [reg] write, the wait
// for the chip (its interrupt, or a fixed 20 ms without one), then a read message; a write is
// [reg, data...] and the same wait; each message tried 3 times 55-65 us apart. On top:
// request_locality, set_ready, get_burst_and_status with their 2 ms polls, send, the TPM core's
// completion poll (tpm_msleep(TPM_TIMEOUT_POLL)) and recv, and release_locality. Every 2 ms
// sleep is counted by its site, so a test can say which of the four the chip made the driver
// take. Used to test the model the way the real driver exercises it, without QEMU.
#pragma once

#include "device/cr50_tpm.h"
#include "device/i2c_bus.h"
#include "device/interrupt_line.h"

#include <chrono>
#include <optional>
#include <vector>

namespace ksweep::device::testing {

using namespace std::chrono_literals;

// The guest's end of the interrupt line: counts the chip's pulses.
struct CountingLine final : InterruptLine {
    void pulse_low() override { ++pulses; }
    int pulses = 0;
};

// The four msleep(TPM_CR50_TIMEOUT_SHORT_MS) sites, by how often each slept.
struct Cr50Sleeps {
    int request_locality = 0;   // the poll after requesting the locality
    int set_ready = 0;          // after writing commandReady
    int status_read_failed = 0; // get_burst_and_status: the TPM_STS read failed
    int burst_or_mask = 0;      // get_burst_and_status: mask not met or burst outside 1..63
    int total() const { return request_locality + set_ready + status_read_failed + burst_or_mask; }
};

class Cr50DriverSim {
  public:
    // `line`: the chip's interrupt line as the guest sees it, or nullptr for a board without it.
    Cr50DriverSim(I2cBus& bus, ManualClock& clock, CountingLine* line,
                  uint16_t address = cr50::kDefaultAddress)
        : bus_(bus), clock_(clock), line_(line), address_(address) {}

    // What msleep(2) takes: the patched tpm_msleep(2) by default (usleep_range(2000, 2300)).
    void set_short_sleep(std::chrono::microseconds d) { short_sleep_ = d; }

    bool read(uint8_t reg, std::span<uint8_t> out) {
        int before = pulses();
        if (!transfer([&] { return bus_.write(address_, std::span(&reg, 1)); }) ||
            !wait_ready(before))
            return false;
        return transfer([&] { return bus_.read(address_, out); });
    }
    bool write(uint8_t reg, std::span<const uint8_t> data) {
        std::vector<uint8_t> msg{reg};
        msg.insert(msg.end(), data.begin(), data.end());
        int before = pulses();
        if (!transfer([&] { return bus_.write(address_, msg); }))
            return false;
        wait_ready(before); // "ignore timeout"
        return true;
    }

    bool check_locality() {
        uint8_t a = 0;
        constexpr uint8_t mask = cr50::kAccessValid | cr50::kAccessActiveLocality;
        return read(cr50::kRegAccess, std::span(&a, 1)) && (a & mask) == mask;
    }
    void release_locality(bool force) {
        uint8_t a = 0;
        constexpr uint8_t mask = cr50::kAccessValid | cr50::kAccessRequestPending;
        if (!read(cr50::kRegAccess, std::span(&a, 1)))
            return;
        if (force || (a & mask) == mask) {
            uint8_t release = cr50::kAccessActiveLocality;
            write(cr50::kRegAccess, std::span(&release, 1));
        }
    }
    bool request_locality() {
        if (check_locality())
            return true;
        uint8_t request = cr50::kAccessRequestUse;
        if (!write(cr50::kRegAccess, std::span(&request, 1)))
            return false;
        auto stop = clock_.now() + 750ms;
        do {
            if (check_locality())
                return true;
            sleep(sleeps.request_locality);
        } while (clock_.now() < stop);
        return false;
    }

    uint8_t status() {
        uint8_t buf[4] = {};
        return read(cr50::kRegStatus, buf) ? buf[0] : 0;
    }
    void set_ready() {
        uint8_t buf[4] = {tis::kStsCommandReady};
        write(cr50::kRegStatus, buf);
        sleep(sleeps.set_ready);
    }
    // The burst count, or nullopt after the driver's 2 s of polling.
    std::optional<size_t> burst_and_status(uint8_t mask, uint8_t& status) {
        auto stop = clock_.now() + 2000ms;
        do {
            uint8_t buf[4] = {};
            if (!read(cr50::kRegStatus, buf)) {
                sleep(sleeps.status_read_failed);
                continue;
            }
            status = buf[0];
            size_t burst = buf[1] | buf[2] << 8;
            if ((status & mask) == mask && burst > 0 && burst <= cr50::kMaxMessage - 1)
                return burst;
            sleep(sleeps.burst_or_mask);
        } while (clock_.now() < stop);
        return std::nullopt;
    }

    bool probe() {
        if (!request_locality())
            return false;
        uint8_t id[4] = {};
        if (!read(cr50::kRegDidVid, id))
            return false;
        return (id[0] | id[1] << 8 | id[2] << 16 | uint32_t(id[3]) << 24) == cr50::kDidVid;
    }

    bool send(const std::vector<uint8_t>& cmd) {
        using namespace tis;
        if (!request_locality())
            return false;
        auto stop = clock_.now() + 2000ms;
        while (!(status() & kStsCommandReady)) {
            if (clock_.now() > stop)
                return fail();
            set_ready();
        }
        uint8_t status = 0;
        for (size_t sent = 0; sent < cmd.size();) {
            uint8_t mask = kStsValid | (sent ? kStsExpect : 0);
            auto burst = burst_and_status(mask, status);
            if (!burst)
                return fail();
            size_t n = std::min(*burst - 1, cmd.size() - sent);
            if (!write(cr50::kRegDataFifo, std::span(cmd).subspan(sent, n)))
                return fail();
            sent += n;
        }
        if (!burst_and_status(kStsValid, status) || (status & kStsExpect))
            return fail();
        uint8_t go[4] = {kStsGo};
        return write(cr50::kRegStatus, go) || fail();
    }

    std::optional<std::vector<uint8_t>> recv() {
        using namespace tis;
        constexpr uint8_t mask = kStsValid | kStsDataAvail;
        uint8_t status = 0;
        std::vector<uint8_t> buf;
        auto burst = burst_and_status(mask, status);
        if (!burst || *burst < 10)
            return fail(), std::nullopt;
        buf.resize(*burst);
        if (!read(cr50::kRegDataFifo, buf))
            return fail(), std::nullopt;
        size_t expected = tpm_header_size_field(buf);
        if (expected > 4096)
            return fail(), std::nullopt;
        while (buf.size() < expected) {
            burst = burst_and_status(mask, status);
            if (!burst)
                return fail(), std::nullopt;
            std::vector<uint8_t> part(std::min(*burst, expected - buf.size()));
            if (!read(cr50::kRegDataFifo, part))
                return fail(), std::nullopt;
            buf.insert(buf.end(), part.begin(), part.end());
        }
        if (!burst_and_status(kStsValid, status) || (status & kStsDataAvail))
            return fail(), std::nullopt;
        release_locality(false);
        return buf;
    }

    // tpm_try_transmit: send, poll TPM_STS for dataAvail every tpm_msleep(1), recv.
    std::optional<std::vector<uint8_t>> transmit(const std::vector<uint8_t>& cmd) {
        if (!send(cmd))
            return std::nullopt;
        constexpr uint8_t done = tis::kStsDataAvail | tis::kStsValid;
        auto stop = clock_.now() + 2000ms;
        while ((status() & done) != done) {
            if (clock_.now() > stop)
                return std::nullopt;
            clock_.advance(1150us); // tpm_msleep(TPM_TIMEOUT_POLL): usleep_range(1000, 1300)
        }
        return recv();
    }

    Cr50Sleeps sleeps;
    int nacked_messages = 0;

  private:
    int pulses() const { return line_ ? line_->pulses : 0; }
    // With the line: the pulse must have come while the message was taken in (the model pulses
    // before it returns); the driver's 750 ms timeout is a failure here. Without: msleep(20).
    bool wait_ready(int pulses_before) {
        if (!line_) {
            clock_.advance(20ms);
            return true;
        }
        return line_->pulses > pulses_before;
    }
    template <typename Message> bool transfer(Message&& message) {
        for (int attempt = 0; attempt < 3; ++attempt) {
            if (message())
                return true;
            ++nacked_messages;
            clock_.advance(60us); // usleep_range(55, 65)
        }
        return false;
    }
    bool fail() {
        if (status() & tis::kStsCommandReady)
            set_ready();
        release_locality(false);
        return false;
    }
    void sleep(int& site) {
        ++site;
        clock_.advance(short_sleep_);
    }

    I2cBus& bus_;
    ManualClock& clock_;
    CountingLine* line_;
    uint16_t address_;
    std::chrono::microseconds short_sleep_ = 2150us;
};

} // namespace ksweep::device::testing
