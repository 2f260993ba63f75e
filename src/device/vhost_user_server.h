// Several vhost-user back ends of one process served by one poll() loop: each listens on its own
// socket, as QEMU's chardevs expect (one per device: the I2C bus and, for a chip with an
// interrupt line, the GPIO controller). QEMU connects to them one after the other and talks to
// each while the others wait, so all are served at once; a back end whose connection closes
// takes the next one (QEMU retries a device's connection).
#pragma once

#include "device/vhost_user_backend.h"

#include <string>
#include <vector>

namespace ksweep::device {

// A listening Unix socket at `path`, or -1 with `error` set. A socket file left by an earlier
// run is removed first (only a socket).
int listen_on(const std::string& path, std::string& error);

class VhostUserServer {
  public:
    explicit VhostUserServer(LogFn log) : log_(std::move(log)) {}

    // `name` is for log lines ("i2c", "gpio"); the server owns `listener`, not the back end.
    void add(const std::string& name, int listener, VhostUserBackend& backend);

    // Serves until every back end has had a connection and all of them are closed (QEMU is
    // gone: returns true) or `stop_fd` becomes readable (returns false).
    bool serve(int stop_fd);

    ~VhostUserServer();

  private:
    struct Endpoint {
        std::string name;
        int listener = -1;
        int connection = -1;
        bool connected_once = false;
        VhostUserBackend* backend = nullptr;
    };
    bool finished() const;

    LogFn log_;
    std::vector<Endpoint> endpoints_;
};

} // namespace ksweep::device
