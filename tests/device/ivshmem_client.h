// QEMU's side of the ivshmem server protocol (docs/specs/ivshmem-spec.rst), as far as the tests
// need it: one message, an 8-byte little-endian number and maybe an fd (SCM_RIGHTS).
#pragma once

#include <cstdint>
#include <cstring>
#include <sys/socket.h>
#include <utility>

namespace ksweep::device::testing {

// {value, fd} (fd -1 when none came); {INT64_MIN, -1} when the connection ended.
inline std::pair<int64_t, int> recv_ivshmem_message(int sock) {
    int64_t value = 0;
    iovec iov{&value, sizeof value};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    if (recvmsg(sock, &msg, MSG_WAITALL) != sizeof value)
        return {INT64_MIN, -1};
    int fd = -1;
    if (cmsghdr* c = CMSG_FIRSTHDR(&msg); c && c->cmsg_type == SCM_RIGHTS)
        std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return {value, fd};
}

} // namespace ksweep::device::testing
