#include "device/ivshmem_doorbell.h"

#include <cerrno>
#include <cstring>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ksweep::device {

namespace {

constexpr int64_t kProtocolVersion = 0;
constexpr int64_t kClientId = 0;      // the first (and only) client of this server
constexpr int64_t kSharedMemory = -1; // the message that carries the shared memory's fd
constexpr off_t kMemorySize = 4096;   // a power of two, as a PCI BAR must be

void close_fd(int& fd) {
    if (fd >= 0)
        close(fd);
    fd = -1;
}

} // namespace

IvshmemDoorbell::~IvshmemDoorbell() {
    close_all();
}

void IvshmemDoorbell::close_all() {
    close_fd(vector_);
    close_fd(memory_);
}

bool IvshmemDoorbell::send(int64_t value, int fd) {
    // Each message: 8 bytes, little-endian (as this host is), maybe an fd (SCM_RIGHTS).
    iovec iov{&value, sizeof value};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    if (fd >= 0) {
        msg.msg_control = control;
        msg.msg_controllen = sizeof control;
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    }
    return sendmsg(connection_, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof value);
}

void IvshmemDoorbell::attach(int connection) {
    connection_ = connection;
    close_all();
    vector_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    memory_ = memfd_create("ksweep-ivshmem", MFD_CLOEXEC);
    if (vector_ < 0 || memory_ < 0 || ftruncate(memory_, kMemorySize) != 0) {
        log_(std::string("ivshmem: cannot make the doorbell: ") + std::strerror(errno));
        return;
    }
    // Version, the client's ID, the shared memory, then its one interrupt vector.
    if (!send(kProtocolVersion, -1) || !send(kClientId, -1) || !send(kSharedMemory, memory_) ||
        !send(kClientId, vector_))
        log_(std::string("ivshmem: setup not sent: ") + std::strerror(errno));
}

void IvshmemDoorbell::add_poll_fds(std::vector<pollfd>& fds) const {
    if (connection_ >= 0)
        fds.push_back({connection_, POLLIN, 0});
}

bool IvshmemDoorbell::handle(std::span<const pollfd> fds) {
    for (const pollfd& p : fds) {
        if (p.fd != connection_ || !(p.revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        // The client never writes: readable means it is gone (or talks out of turn).
        char byte;
        if (recv(connection_, &byte, 1, MSG_DONTWAIT) != 0)
            log_("ivshmem: the client wrote to the server, or failed; closing");
        connection_ = -1;
        close_all();
        return false;
    }
    return true;
}

void IvshmemDoorbell::pulse_low() {
    ++stats_.pulses;
    uint64_t one = 1;
    bool sent = vector_ >= 0 && write(vector_, &one, sizeof one) == sizeof one;
    stats_.delivered += sent;
    if (trace_)
        trace_(sent ? "IRQ: chip pulsed its line: MSI-X vector 0"
                    : "IRQ: chip pulsed its line: no guest connected");
}

} // namespace ksweep::device
