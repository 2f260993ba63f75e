// A vhost-user back end for one virtio device: the protocol once (features, memory table, rings,
// config space), the device a thin table of handlers, one per virtqueue (VhostUserDevice).
// Served from a poll() loop: serve() for one connection, or VhostUserServer
// (vhost_user_server.h) for several devices of one process. The device's work is done inline,
// between kicks, which is plenty for an I2C bus and its interrupt line.
#pragma once

#include "device/i2c_bus.h"
#include "device/vhost_user_memory.h"
#include "device/vhost_user_protocol.h"
#include "device/virtqueue.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <poll.h>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

// Handles one available descriptor chain; returns the used length, or nullopt when the device
// keeps the chain to complete it later (VhostUserBackend::complete): a virtio-gpio eventq
// buffer waits for its interrupt.
using ChainHandler = std::function<std::optional<uint32_t>(
    std::span<const uint8_t> descriptor_table, uint16_t head, const GuestMemory& memory)>;

// What one device answers besides the protocol.
struct VhostUserDevice {
    uint64_t features = 0;            // device-specific feature bits, offered with the transport's
    std::vector<ChainHandler> queues; // one handler per virtqueue, by queue index
    std::vector<uint8_t> config;      // the config space (GET_CONFIG); empty: the device has none
    // Called when a queue stops or the connection resets: the chains the device kept for it are
    // gone and must not be completed.
    std::function<void(uint16_t queue)> queue_stopped = {};
};

class VhostUserBackend final : public DeferredCompletion {
  public:
    VhostUserBackend(VhostUserDevice device, LogFn log);
    // A device with one request queue and no config space (virtio-i2c).
    VhostUserBackend(uint64_t device_features, ChainHandler handler, LogFn log);
    ~VhostUserBackend() override;
    VhostUserBackend(const VhostUserBackend&) = delete;
    VhostUserBackend& operator=(const VhostUserBackend&) = delete;

    // Serves a connected socket until the peer closes it (returns true) or `stop_fd` becomes
    // readable (returns false). A protocol error closes the connection with a log line.
    bool serve(int connection, int stop_fd);

    // The poll loop's side, for serving several back ends at once: the fds to poll (the
    // connection and the enabled queues' kick fds), then what they reported. handle() returns
    // false when the connection is closed (the back end is reset and may take a new one).
    void attach(int connection);
    bool attached() const { return connection_ >= 0; }
    void add_poll_fds(std::vector<pollfd>& fds) const;
    bool handle(std::span<const pollfd> fds);

    // Returns a chain the device kept (ChainHandler returned nullopt) with its used length, and
    // signals the guest. False when the queue is gone (stopped, reset, not started).
    bool complete(uint16_t queue, uint16_t head, uint32_t used) override;
    const GuestMemory& memory() const override { return memory_.view(); }

    uint64_t kicks() const { return kicks_; }

  private:
    struct Vring {
        uint16_t num = 0;
        uint16_t base = 0;
        RingAddresses addresses;
        bool have_addresses = false;
        bool enabled = false;
        int kick = -1;
        int call = -1;
        SplitVirtqueue queue;
    };

    bool handle_message();
    // Returns false when the message is refused (logged, and acked as failed if asked);
    // `reply` is sent if non-empty.
    bool dispatch(const vhost_user::Header& header, std::span<const uint8_t> payload,
                  std::vector<int>& fds, std::vector<uint8_t>& reply);
    bool get_config(std::span<const uint8_t> payload, std::vector<uint8_t>& reply) const;
    Vring* ring(uint32_t index);
    bool start_queue(uint16_t index);
    void process_queue(uint16_t index);
    void notify(Vring& vring);
    void detach_ring(Vring& vring);
    void stop_ring(uint16_t index);
    void reset();
    void replace_fd(int& slot, std::vector<int>& fds, uint64_t payload);

    VhostUserDevice device_;
    uint64_t offered_features_;
    uint64_t offered_protocol_features_;
    uint64_t acked_features_ = 0;
    uint64_t protocol_features_ = 0;
    LogFn log_;
    VhostUserMemory memory_;
    std::vector<Vring> rings_;
    int connection_ = -1;
    uint64_t kicks_ = 0;
};

} // namespace ksweep::device
