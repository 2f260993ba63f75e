// virtio-i2c (virtio 1.2, 5.19; uapi linux/virtio_i2c.h): one request per I2C message, laid out
// as a driver-readable out header {le16 addr; le16 padding; le32 flags}, the message buffer
// (readable for a write, writable for a read) and a writable in header {u8 status}.
#pragma once

#include "device/i2c_bus.h"
#include "device/virtqueue.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ksweep::device {

inline constexpr uint64_t kVirtioI2cFZeroLengthRequest = 1ull << 0;
inline constexpr uint32_t kVirtioI2cFlagFailNext = 1u << 0;
inline constexpr uint32_t kVirtioI2cFlagRead = 1u << 1;
inline constexpr uint8_t kVirtioI2cOk = 0;
inline constexpr uint8_t kVirtioI2cErr = 1;
inline constexpr uint32_t kVirtioI2cDeviceId = 34;

// Largest message buffer accepted; an SMBus block is 32 bytes, a TPM response a few KiB.
inline constexpr uint32_t kMaxI2cMessage = 64 * 1024;

struct I2cRequest {
    uint16_t address = 0; // 7-bit target address (the wire field holds it shifted left by one)
    uint32_t flags = 0;
    bool is_read = false;
    std::vector<uint8_t> write_data;  // the message for a write
    std::vector<Segment> read_buffer; // where a read's bytes go
    uint32_t read_len = 0;
    std::optional<Segment> status; // the in header; absent when the chain has none
    std::string error;             // empty when the request is well-formed
    bool ok() const { return error.empty(); }
};

// Checks a descriptor chain's shape and lengths and copies out what the device needs. Pure over
// (chain, memory): it never writes guest memory. When `error` is set but `status` is present,
// the request can still be answered with an error status.
I2cRequest parse_i2c_request(const std::vector<Segment>& chain, const GuestMemory& memory);

// Serves the request queue: runs each request on the bus and completes it.
class VirtioI2cDevice {
  public:
    VirtioI2cDevice(I2cBus& bus, LogFn log) : bus_(bus), log_(std::move(log)) {}

    // Handles the chain at `head`; returns the number of bytes written into the chain (the used
    // length). Malformed requests get an error status when possible and are logged.
    uint32_t handle(std::span<const uint8_t> descriptor_table, uint16_t head,
                    const GuestMemory& memory);

    uint64_t requests() const { return requests_; }
    uint64_t malformed() const { return malformed_; }

  private:
    uint32_t complete(const I2cRequest& req, const GuestMemory& memory, uint8_t status,
                      std::span<const uint8_t> data);

    I2cBus& bus_;
    LogFn log_;
    bool fail_rest_ = false; // a failed message with FAIL_NEXT fails the rest of its transfer
    uint64_t requests_ = 0;
    uint64_t malformed_ = 0;
};

} // namespace ksweep::device
