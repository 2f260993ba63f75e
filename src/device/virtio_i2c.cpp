#include "device/virtio_i2c.h"

#include <algorithm>
#include <cstring>

namespace ksweep::device {

namespace {

constexpr size_t kOutHeaderSize = 8;
constexpr uint32_t kKnownFlags = kVirtioI2cFlagFailNext | kVirtioI2cFlagRead;

// Copies the driver-readable segments into one buffer (at most `limit` bytes).
bool gather(const std::vector<Segment>& readable, const GuestMemory& memory, uint64_t limit,
            std::vector<uint8_t>& out) {
    for (const auto& s : readable) {
        if (out.size() + s.len > limit)
            return false;
        auto bytes = memory.translate(s.guest_phys, s.len);
        if (!bytes)
            return false;
        out.insert(out.end(), bytes->begin(), bytes->end());
    }
    return true;
}

// Writes `data` across `segments` in order; the segments were checked at parse time, but
// translate again so a changed memory table can never turn them into a wild write.
void scatter(const std::vector<Segment>& segments, const GuestMemory& memory,
             std::span<const uint8_t> data) {
    size_t done = 0;
    for (const auto& s : segments) {
        if (done >= data.size())
            return;
        size_t n = std::min<size_t>(s.len, data.size() - done);
        if (auto dst = memory.translate(s.guest_phys, n))
            std::memcpy(dst->data(), data.data() + done, n);
        done += n;
    }
}

} // namespace

I2cRequest parse_i2c_request(const std::vector<Segment>& chain, const GuestMemory& memory) {
    I2cRequest req;
    std::vector<Segment> readable, writable;
    uint64_t writable_len = 0;
    for (const auto& s : chain) {
        if (!s.device_writable && !writable.empty()) {
            req.error = "readable buffer after a writable one";
            return req;
        }
        (s.device_writable ? writable : readable).push_back(s);
        if (s.device_writable)
            writable_len += s.len;
    }

    // The status byte is the last writable byte; find it first so later errors can be reported.
    if (writable_len == 0) {
        req.error = "no writable in header (status byte)";
        return req;
    }
    while (writable.back().len == 0) // zero-length trailing segments carry nothing
        writable.pop_back();
    Segment last = writable.back();
    req.status = Segment{last.guest_phys + last.len - 1, 1, true};
    writable.back().len -= 1;
    writable_len -= 1;

    std::vector<uint8_t> out;
    if (!gather(readable, memory, kOutHeaderSize + kMaxI2cMessage, out)) {
        req.error = "out buffers too long or outside guest memory";
        return req;
    }
    if (out.size() < kOutHeaderSize) {
        req.error = "out header shorter than 8 bytes";
        return req;
    }
    uint16_t raw_addr;
    std::memcpy(&raw_addr, out.data(), 2);
    std::memcpy(&req.flags, out.data() + 4, 4);
    if (raw_addr & 1 || (raw_addr >> 1) > 0x7f) {
        req.error = "not a 7-bit address";
        return req;
    }
    req.address = raw_addr >> 1;
    if (req.flags & ~kKnownFlags) {
        req.error = "unknown flags";
        return req;
    }
    req.is_read = req.flags & kVirtioI2cFlagRead;
    if (req.is_read) {
        if (out.size() != kOutHeaderSize) {
            req.error = "read request carries write data";
            return req;
        }
        if (writable_len > kMaxI2cMessage) {
            req.error = "read buffer too long";
            return req;
        }
        req.read_len = static_cast<uint32_t>(writable_len);
        req.read_buffer = std::move(writable);
    } else {
        if (writable_len != 0) {
            req.error = "write request has a writable buffer besides the status";
            return req;
        }
        req.write_data.assign(out.begin() + kOutHeaderSize, out.end());
    }
    return req;
}

uint32_t VirtioI2cDevice::complete(const I2cRequest& req, const GuestMemory& memory, uint8_t status,
                                   std::span<const uint8_t> data) {
    scatter(req.read_buffer, memory, data);
    if (auto dst = memory.translate(req.status->guest_phys, 1))
        (*dst)[0] = status;
    return static_cast<uint32_t>(data.size()) + 1;
}

uint32_t VirtioI2cDevice::handle(std::span<const uint8_t> descriptor_table, uint16_t head,
                                 const GuestMemory& memory) {
    ++requests_;
    ChainResult chain = read_descriptor_chain(descriptor_table, head, memory);
    if (!chain.ok()) {
        ++malformed_;
        log_("virtio-i2c: dropped request " + std::to_string(head) + ": " + chain.error);
        fail_rest_ = false;
        return 0;
    }
    I2cRequest req = parse_i2c_request(chain.segments, memory);
    bool fail_next = req.flags & kVirtioI2cFlagFailNext;
    if (!req.ok()) {
        ++malformed_;
        log_("virtio-i2c: bad request " + std::to_string(head) + ": " + req.error);
        fail_rest_ = fail_next;
        return req.status ? complete(req, memory, kVirtioI2cErr, {}) : 0;
    }
    if (fail_rest_) {
        // An earlier message of this transfer failed: the rest is not put on the bus.
        fail_rest_ = fail_next;
        return complete(req, memory, kVirtioI2cErr, {});
    }
    bool acked;
    std::vector<uint8_t> data(req.read_len);
    if (req.is_read)
        acked = bus_.read(req.address, data);
    else
        acked = bus_.write(req.address, req.write_data);
    fail_rest_ = !acked && fail_next;
    if (!acked)
        return complete(req, memory, kVirtioI2cErr, {});
    return complete(req, memory, kVirtioI2cOk, data);
}

} // namespace ksweep::device
