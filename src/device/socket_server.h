// The sockets one ksweep-tpmd serves, in one poll() loop: the vhost-user back end of the I2C bus
// and, for a chip with an interrupt line, the ivshmem server that carries it (ivshmem_doorbell.h).
// QEMU connects to each socket (one chardev each) and then realizes one device after the other,
// waiting on each: all are served at once. A peer whose connection closes takes the next one.
#pragma once

#include "device/i2c_bus.h"

#include <poll.h>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

// What listens at one socket, as the server loop drives it.
class SocketPeer {
  public:
    virtual ~SocketPeer() = default;
    // A new connection (the server owns the fd and closes it when handle() says it is over).
    virtual void attach(int connection) = 0;
    // The fds to poll for it: the connection and whatever else the peer waits on.
    virtual void add_poll_fds(std::vector<pollfd>& fds) const = 0;
    // What those fds reported; false when the connection is over.
    virtual bool handle(std::span<const pollfd> fds) = 0;
};

// A listening Unix socket at `path`, or -1 with `error` set. A socket file left by an earlier
// run is removed first (only a socket).
int listen_on(const std::string& path, std::string& error);

class SocketServer {
  public:
    explicit SocketServer(LogFn log) : log_(std::move(log)) {}
    ~SocketServer();
    SocketServer(const SocketServer&) = delete;
    SocketServer& operator=(const SocketServer&) = delete;

    // `name` starts its log lines ("vhost-user", "ivshmem"); the server owns `listener`.
    void add(const std::string& name, int listener, SocketPeer& peer);

    // Serves until every peer has had a connection and all of them are closed (QEMU is gone:
    // returns true) or `stop_fd` becomes readable (returns false).
    bool serve(int stop_fd);

  private:
    struct Endpoint {
        std::string name;
        int listener = -1;
        int connection = -1;
        bool connected_once = false;
        SocketPeer* peer = nullptr;
    };
    bool finished() const;

    LogFn log_;
    std::vector<Endpoint> endpoints_;
};

} // namespace ksweep::device
