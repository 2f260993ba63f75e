// Fuzz target: the input is the byte stream a VMM writes on the vhost-user socket (no fds).
// It is written into a socketpair and served until EOF, so the header and payload reading, the
// size checks and every request's payload parsing see arbitrary bytes. Replies pile up in the
// other end's receive buffer, which is ample for the default 4 KiB inputs.
#include "device/vhost_user_backend.h"
#include "device/virtio_i2c.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace ksweep::device;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return 0;
    int stop = eventfd(0, 0);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(sv[0], data + done, size - done);
        if (n <= 0)
            break;
        done += static_cast<size_t>(n);
    }
    shutdown(sv[0], SHUT_WR);
    VhostUserBackend backend(
        kVirtioI2cFZeroLengthRequest,
        [](std::span<const uint8_t>, uint16_t, const GuestMemory&) { return 0u; },
        [](const std::string&) {});
    backend.serve(sv[1], stop);
    close(sv[0]);
    close(sv[1]);
    close(stop);
    return 0;
}
