// The register-level conversation drivers/char/tpm/tpm_i2c_nuvoton.c (Linux 6.1) has with the
// chip, replayed over an I2cBus with a manual clock: SMBus i2c-block reads (register pointer
// write, then a read) and writes (register, then data), the send and receive sequences and the
// driver's polling sleeps (2 ms for the first 10 ms, then 10 ms). Used to test the model the
// way the real driver exercises it, without QEMU.
#pragma once

#include "device/i2c_bus.h"
#include "device/nuvoton_tpm.h"
#include "scripted_tpm.h"

#include <chrono>
#include <optional>
#include <vector>

namespace ksweep::device::testing {

using namespace std::chrono_literals;

class NuvotonDriverSim {
  public:
    NuvotonDriverSim(I2cBus& bus, ManualClock& clock, uint16_t address = nuvoton::kDefaultAddress)
        : bus_(bus), clock_(clock), address_(address) {}

    // i2c_smbus_read_i2c_block_data: nullopt when either message is NACKed.
    std::optional<std::vector<uint8_t>> read_block(uint8_t reg, size_t n) {
        uint8_t pointer[1] = {reg};
        if (!bus_.write(address_, pointer))
            return std::nullopt;
        std::vector<uint8_t> data(n);
        if (!bus_.read(address_, data))
            return std::nullopt;
        return data;
    }

    bool write_block(uint8_t reg, std::span<const uint8_t> data) {
        std::vector<uint8_t> msg{reg};
        msg.insert(msg.end(), data.begin(), data.end());
        return bus_.write(address_, msg);
    }

    // i2c_nuvoton_read_status: 0x07 on a failed read.
    uint8_t read_status() {
        auto s = read_block(nuvoton::kRegStatus, 1);
        return s ? (*s)[0] : 0x07;
    }

    bool write_status(uint8_t value) {
        uint8_t b[1] = {value};
        for (int i = 0; i < 32; ++i) {
            bool ok = write_block(nuvoton::kRegStatus, b);
            if (!ok || sleep_after_status_write_)
                clock_.advance(bus_delay_);
            if (ok)
                return true;
        }
        return false;
    }

    // i2c_nuvoton_wait_for_stat, polling mode.
    bool wait_for_stat(uint8_t mask, uint8_t value, std::chrono::milliseconds timeout = 750ms) {
        auto check = [&] {
            uint8_t s = read_status();
            return s != 0x07 && (s & mask) == value;
        };
        if (check())
            return true;
        auto start = clock_.now();
        while (clock_.now() - start < timeout) {
            clock_.advance(clock_.now() - start < 10ms ? short_delay_ : long_delay_);
            ++polls_;
            if (check())
                return true;
        }
        return false;
    }

    int get_burstcount() {
        auto start = clock_.now();
        while (clock_.now() - start < 750ms) {
            auto b = read_block(nuvoton::kRegBurstCount, 1);
            if (b && (*b)[0] > 0)
                return std::min<int>(32, (*b)[0]);
            clock_.advance(bus_delay_);
        }
        return -1;
    }

    // i2c_nuvoton_send followed by waiting for dataAvail.
    bool send(const std::vector<uint8_t>& cmd) {
        using namespace nuvoton;
        write_status(kStsCommandReady);
        if (!wait_for_stat(kStsCommandReady, kStsCommandReady))
            return false;
        size_t count = 0;
        while (count < cmd.size() - 1) {
            int burst = get_burstcount();
            if (burst < 0)
                return false;
            size_t n = std::min<size_t>(burst, cmd.size() - 1 - count);
            if (!write_block(kRegFifoWrite, std::span(cmd).subspan(count, n)))
                return false;
            count += n;
            if (!wait_for_stat(kStsValid | kStsExpect, kStsValid | kStsExpect))
                return false;
        }
        if (!write_block(kRegFifoWrite, std::span(cmd).subspan(count, 1)))
            return false;
        if (!wait_for_stat(kStsValid | kStsExpect, kStsValid))
            return false;
        if (!write_status(kStsGo))
            return false;
        return wait_for_stat(kStsDataAvail | kStsValid, kStsDataAvail | kStsValid, 2000ms);
    }

    std::optional<std::vector<uint8_t>> recv_data(size_t count) {
        using namespace nuvoton;
        std::vector<uint8_t> buf;
        while (buf.size() < count &&
               wait_for_stat(kStsDataAvail | kStsValid, kStsDataAvail | kStsValid)) {
            int burst = get_burstcount();
            if (burst < 0)
                return std::nullopt;
            auto data = read_block(kRegFifoRead, std::min<size_t>(burst, count - buf.size()));
            if (!data)
                return std::nullopt;
            buf.insert(buf.end(), data->begin(), data->end());
        }
        return buf;
    }

    // i2c_nuvoton_recv, with `retry_first` forcing one responseRetry round as after a bad read.
    std::optional<std::vector<uint8_t>> recv(bool retry_first = false) {
        using namespace nuvoton;
        for (int attempt = 0; attempt < 5; ++attempt) {
            if (attempt > 0)
                write_status(kStsResponseRetry);
            if (!wait_for_stat(kStsDataAvail | kStsValid, kStsDataAvail | kStsValid))
                continue;
            int burst = get_burstcount();
            if (burst < 0)
                continue;
            auto head = recv_data(burst);
            if (!head || head->size() < 10)
                continue;
            if (retry_first && attempt == 0)
                continue; // pretend the header was corrupted on the wire
            uint32_t expected = uint32_t{(*head)[2]} << 24 | uint32_t{(*head)[3]} << 16 |
                                uint32_t{(*head)[4]} << 8 | (*head)[5];
            if (expected < head->size())
                continue;
            auto rest = recv_data(expected - head->size());
            if (!rest)
                continue;
            head->insert(head->end(), rest->begin(), rest->end());
            if (head->size() != expected)
                continue;
            if (!wait_for_stat(kStsValid | kStsDataAvail, kStsValid))
                continue;
            write_status(kStsCommandReady);
            return head;
        }
        write_status(kStsCommandReady);
        return std::nullopt;
    }

    std::optional<std::vector<uint8_t>> transmit(const std::vector<uint8_t>& cmd) {
        if (!send(cmd))
            return std::nullopt;
        return recv();
    }

    // The historical (pre-v4.12) driver slept msleep(1) (about 12 ms at HZ=250) after every
    // status write and msleep(2) between polls; the 6.1 one uses usleep_range.
    void use_msleep_timing() {
        bus_delay_ = 12ms;
        short_delay_ = 12ms;
        long_delay_ = 20ms;
        sleep_after_status_write_ = true;
    }

    int polls() const { return polls_; }

  private:
    I2cBus& bus_;
    ManualClock& clock_;
    uint16_t address_;
    std::chrono::microseconds bus_delay_ = 1150us;   // usleep_range(1000, 1300)
    std::chrono::microseconds short_delay_ = 2150us; // usleep_range(2000, 2300)
    std::chrono::microseconds long_delay_ = 10150us; // usleep_range(10000, 10300)
    bool sleep_after_status_write_ = false;
    int polls_ = 0;
};

} // namespace ksweep::device::testing
