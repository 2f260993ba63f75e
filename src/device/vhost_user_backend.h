// A vhost-user back end for one virtio device with one request queue, served by one thread:
// poll() over the control socket, the queue's kick eventfd and a stop fd (serve()), or as one
// peer of a SocketServer (socket_server.h) beside the others of its process. The device's work
// is done inline, between kicks, which is plenty for an I2C bus.
#pragma once

#include "device/i2c_bus.h"
#include "device/socket_server.h"
#include "device/vhost_user_memory.h"
#include "device/vhost_user_protocol.h"
#include "device/virtqueue.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

// Handles one available descriptor chain; returns the used length.
using ChainHandler = std::function<uint32_t(std::span<const uint8_t> descriptor_table,
                                            uint16_t head, const GuestMemory& memory)>;

class VhostUserBackend final : public SocketPeer {
  public:
    // `device_features`: the device-specific feature bits offered besides the transport ones.
    VhostUserBackend(uint64_t device_features, ChainHandler handler, LogFn log);
    ~VhostUserBackend() override;
    VhostUserBackend(const VhostUserBackend&) = delete;
    VhostUserBackend& operator=(const VhostUserBackend&) = delete;

    // Serves a connected socket until the peer closes it (returns true) or `stop_fd` becomes
    // readable (returns false). A protocol error closes the connection with a log line.
    bool serve(int connection, int stop_fd);

    // SocketPeer: the connection and the queue's kick fd.
    void attach(int connection) override { connection_ = connection; }
    void add_poll_fds(std::vector<pollfd>& fds) const override;
    bool handle(std::span<const pollfd> fds) override;

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

    bool handle_message(int connection);
    // Returns false when the message is refused (logged, and acked as failed if asked);
    // `reply` is sent if non-empty.
    bool dispatch(const vhost_user::Header& header, std::span<const uint8_t> payload,
                  std::vector<int>& fds, std::vector<uint8_t>& reply);
    void process_queue();
    void detach_ring();
    void stop_ring();
    void reset();
    void replace_fd(int& slot, std::vector<int>& fds, uint64_t payload);

    uint64_t offered_features_;
    uint64_t acked_features_ = 0;
    uint64_t protocol_features_ = 0;
    ChainHandler handler_;
    LogFn log_;
    VhostUserMemory memory_;
    Vring ring_;
    int connection_ = -1;
    uint64_t kicks_ = 0;
};

} // namespace ksweep::device
