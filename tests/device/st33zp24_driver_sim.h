// The register-level conversation drivers/char/tpm/st33zp24/{st33zp24.c,i2c.c} (Linux 6.1)
// has with the chip when bound without an IRQ, replayed over an I2cBus with a manual clock:
// reads as a [reg, 0xaa] write then a read, writes as [reg | 0x80, data...]; request_locality,
// get_burstcount and wait_for_stat with their msleep(TPM_TIMEOUT) polls, st33zp24_send (the
// last byte apart, DATA_EXPECT checked around it, GO), the TPM core's completion poll
// (tpm_msleep(TPM_TIMEOUT_POLL)), st33zp24_recv (header, then the rest), cancel and
// release_locality. Used to test the model the way the real driver exercises it, without QEMU.
#pragma once

#include "device/i2c_bus.h"
#include "device/st33zp24_tpm.h"
#include "scripted_tpm.h"

#include <chrono>
#include <optional>
#include <vector>

namespace ksweep::device::testing {

using namespace std::chrono_literals;

class St33zp24DriverSim {
  public:
    St33zp24DriverSim(I2cBus& bus, ManualClock& clock, uint16_t address = st33zp24::kDefaultAddress)
        : bus_(bus), clock_(clock), address_(address) {}

    // read8_reg: the result is what the driver's u8 `status` holds (1 on success).
    int recv(uint8_t reg, std::span<uint8_t> out) {
        uint8_t pointer[2] = {reg, 0xaa};
        if (!bus_.write(address_, pointer))
            return -1;
        return bus_.read(address_, out) ? static_cast<int>(out.size()) : -1;
    }
    bool send(uint8_t reg, std::span<const uint8_t> data) {
        std::vector<uint8_t> msg{static_cast<uint8_t>(reg | st33zp24::kWriteDirection)};
        msg.insert(msg.end(), data.begin(), data.end());
        return bus_.write(address_, msg);
    }
    bool send_byte(uint8_t reg, uint8_t value) { return send(reg, std::span(&value, 1)); }

    // st33zp24_status: 0 when the read fails.
    uint8_t status() {
        uint8_t s = 0;
        return recv(st33zp24::kRegStatus, std::span(&s, 1)) == 1 ? s : 0;
    }

    bool check_locality() {
        uint8_t a = 0;
        constexpr uint8_t want = st33zp24::kAccessActiveLocality | st33zp24::kAccessValid;
        return recv(st33zp24::kRegAccess, std::span(&a, 1)) == 1 && (a & want) == want;
    }

    bool request_locality() {
        if (check_locality())
            return true;
        send_byte(st33zp24::kRegAccess, st33zp24::kAccessRequestUse);
        auto start = clock_.now();
        do {
            if (check_locality())
                return true;
            sleep();
        } while (clock_.now() - start < 750ms);
        return false;
    }

    void release_locality() { send_byte(st33zp24::kRegAccess, st33zp24::kAccessActiveLocality); }

    int get_burstcount() {
        auto start = clock_.now();
        do {
            uint8_t low = 0, high = 0;
            recv(st33zp24::kRegBurstCountLow, std::span(&low, 1));
            recv(st33zp24::kRegBurstCountHigh, std::span(&high, 1));
            if (int burst = low | high << 8)
                return burst;
            sleep();
        } while (clock_.now() - start < 750ms);
        return -1;
    }

    // wait_for_stat, polling branch: one check, then sleep-and-check.
    bool wait_for_stat(uint8_t mask, std::chrono::milliseconds timeout = 750ms) {
        if ((status() & mask) == mask)
            return true;
        auto start = clock_.now();
        do {
            sleep();
            if ((status() & mask) == mask)
                return true;
        } while (clock_.now() - start < timeout);
        return false;
    }

    void cancel() { send_byte(st33zp24::kRegStatus, tis::kStsCommandReady); }

    bool send_command(const std::vector<uint8_t>& buf) {
        using namespace tis;
        if (!request_locality())
            return false;
        if (!(status() & kStsCommandReady)) {
            cancel();
            if (!wait_for_stat(kStsCommandReady, 2000ms))
                return fail_send();
        }
        for (size_t i = 0; i < buf.size() - 1;) {
            int burst = get_burstcount();
            if (burst < 0)
                return fail_send();
            size_t n = std::min<size_t>(buf.size() - i - 1, burst);
            send(st33zp24::kRegDataFifo, std::span(buf).subspan(i, n));
            i += n;
        }
        if (!(status() & kStsExpect))
            return fail_send();
        send(st33zp24::kRegDataFifo, std::span(buf).subspan(buf.size() - 1, 1));
        if (status() & kStsExpect)
            return fail_send();
        send_byte(st33zp24::kRegStatus, kStsGo);
        return true;
    }

    // tpm_try_transmit's poll for req_complete_val, then st33zp24_recv.
    std::optional<std::vector<uint8_t>> receive() {
        using namespace tis;
        constexpr uint8_t done = kStsDataAvail | kStsValid;
        auto start = clock_.now();
        while ((status() & done) != done) {
            if (clock_.now() - start > 2000ms)
                return std::nullopt;
            clock_.advance(core_poll_);
        }
        std::vector<uint8_t> buf = recv_data(10);
        std::optional<std::vector<uint8_t>> result;
        if (buf.size() == 10) {
            uint32_t expected = tpm_header_size_field(buf);
            if (expected >= 10 && expected <= 4096) {
                auto rest = recv_data(expected - 10);
                buf.insert(buf.end(), rest.begin(), rest.end());
                if (buf.size() == expected)
                    result = buf;
            }
        }
        cancel();
        release_locality();
        return result;
    }

    std::optional<std::vector<uint8_t>> transmit(const std::vector<uint8_t>& cmd) {
        if (!send_command(cmd))
            return std::nullopt;
        return receive();
    }

    // msleep(TPM_TIMEOUT) at HZ=250 on 6.1 (3 jiffies, about 12 ms measured) instead of the
    // patched usleep_range(5000, 5300).
    void use_msleep_timing() { sleep_ = 12ms; }
    int sleeps() const { return sleeps_; }

  private:
    std::vector<uint8_t> recv_data(size_t count) {
        using namespace tis;
        std::vector<uint8_t> buf;
        while (buf.size() < count && wait_for_stat(kStsDataAvail | kStsValid)) {
            int burst = get_burstcount();
            if (burst < 0)
                break;
            std::vector<uint8_t> part(std::min<size_t>(burst, count - buf.size()));
            recv(st33zp24::kRegDataFifo, part);
            buf.insert(buf.end(), part.begin(), part.end());
        }
        return buf;
    }
    bool fail_send() {
        cancel();
        release_locality();
        return false;
    }
    void sleep() {
        clock_.advance(sleep_);
        ++sleeps_;
    }

    I2cBus& bus_;
    ManualClock& clock_;
    uint16_t address_;
    std::chrono::microseconds sleep_ = 5150us;    // usleep_range(5000, 5300)
    std::chrono::microseconds core_poll_ = 850us; // tpm_msleep(1): usleep_range(700, 1000)
    int sleeps_ = 0;
};

} // namespace ksweep::device::testing
