#include "device/socket_server.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace ksweep::device {

int listen_on(const std::string& path, std::string& error) {
    sockaddr_un addr{};
    if (path.size() >= sizeof addr.sun_path) {
        error = "socket path too long: " + path;
        return -1;
    }
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    std::error_code ec;
    if (std::filesystem::is_socket(path, ec))
        std::filesystem::remove(path, ec);
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0 ||
        listen(fd, 1) < 0) {
        error = std::string("cannot listen on ") + path + ": " + std::strerror(errno);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

void SocketServer::add(const std::string& name, int listener, SocketPeer& peer) {
    endpoints_.push_back({name, listener, -1, false, &peer});
}

SocketServer::~SocketServer() {
    for (auto& e : endpoints_)
        for (int fd : {e.connection, e.listener})
            if (fd >= 0)
                close(fd);
}

bool SocketServer::finished() const {
    return std::all_of(endpoints_.begin(), endpoints_.end(),
                       [](const Endpoint& e) { return e.connected_once && e.connection < 0; });
}

bool SocketServer::serve(int stop_fd) {
    while (!finished()) {
        // Layout: the stop fd, each endpoint's listener or its peer's fds, in order.
        std::vector<pollfd> fds{{stop_fd, POLLIN, 0}};
        std::vector<size_t> first(endpoints_.size());
        for (size_t i = 0; i < endpoints_.size(); ++i) {
            first[i] = fds.size();
            if (endpoints_[i].connection < 0)
                fds.push_back({endpoints_[i].listener, POLLIN, 0});
            else
                endpoints_[i].peer->add_poll_fds(fds);
        }
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR)
                continue;
            log_(std::string("poll: ") + std::strerror(errno));
            return false;
        }
        if (fds[0].revents)
            return false;
        for (size_t i = 0; i < endpoints_.size(); ++i) {
            Endpoint& e = endpoints_[i];
            size_t end = i + 1 < endpoints_.size() ? first[i + 1] : fds.size();
            std::span<const pollfd> mine(fds.data() + first[i], end - first[i]);
            if (e.connection < 0) {
                if (!(mine[0].revents & POLLIN))
                    continue;
                e.connection = accept4(e.listener, nullptr, nullptr, SOCK_CLOEXEC);
                if (e.connection >= 0) {
                    e.connected_once = true;
                    e.peer->attach(e.connection);
                    log_(e.name + ": connected");
                }
            } else if (!e.peer->handle(mine)) {
                close(e.connection);
                e.connection = -1;
                log_(e.name + ": disconnected");
            }
        }
    }
    return true;
}

} // namespace ksweep::device
