// A chip's register file as a table: each register's address and the member functions that
// serve a read of it and a write to it. The chip models (nuvoton_tpm.h, st33zp24_tpm.h) are
// their bus framing plus one of these over the shared TpmFifo; what a register the chip does not
// have does is decided here once: a read gets 0xff, a write is dropped, and both are protocol
// errors (a driver that touches such a register is wrong, not the bus).
#pragma once

#include "device/tpm_fifo.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

template <typename Chip> class RegisterTable {
  public:
    struct Register {
        uint8_t address;
        void (Chip::*read)(std::span<uint8_t> out);         // nullptr: write-only
        void (Chip::*write)(std::span<const uint8_t> data); // nullptr: read-only
    };

    RegisterTable(std::initializer_list<Register> registers) : registers_(registers) {}

    void read(Chip& chip, TpmFifo& fifo, uint8_t address, std::span<uint8_t> out) const {
        if (const Register* r = find(address); r && r->read) {
            (chip.*r->read)(out);
            return;
        }
        std::fill(out.begin(), out.end(), 0xff);
        fifo.protocol_error("read of write-only or unknown register " + hex(address));
    }

    void write(Chip& chip, TpmFifo& fifo, uint8_t address, std::span<const uint8_t> data) const {
        if (const Register* r = find(address); r && r->write)
            (chip.*r->write)(data);
        else
            fifo.protocol_error("write to read-only or unknown register " + hex(address));
    }

  private:
    const Register* find(uint8_t address) const {
        for (const auto& r : registers_)
            if (r.address == address)
                return &r;
        return nullptr;
    }
    static std::string hex(uint8_t address) {
        char text[8];
        std::snprintf(text, sizeof text, "0x%02x", address);
        return text;
    }

    std::vector<Register> registers_;
};

} // namespace ksweep::device
