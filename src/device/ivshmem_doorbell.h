// The chip's interrupt line as QEMU's ivshmem-doorbell device carries it into the guest
// (QEMU docs/specs/ivshmem-spec.rst). ksweep-tpmd is the ivshmem server of its one client, QEMU:
// on connect it sends protocol version 0, the client's ID (0), the shared memory (a one-page
// memfd: the device needs one; nothing uses it) and the interrupt setup, one eventfd for vector
// 0. A pulse of the chip's line is a write of 1 to that eventfd, which QEMU turns into MSI-X
// vector 0 of the device; the guest's bind module (qemu/bind/) hands that vector to the cr50
// driver as its IRQ. MSI-X keeps a vector masked by the driver's disable_irq() pending until it
// is unmasked, as the chip's falling edge would be. Nothing comes back on the socket (the
// protocol is one-way): the connection is only watched for its end.
//
// Why not virtio-gpio: QEMU 7.2's vhost-user-gpio-pci never offers VIRTIO_GPIO_F_IRQ to the
// guest (docs/cr50.md), so gpio-virtio has no interrupt controller there.
#pragma once

#include "device/i2c_bus.h"
#include "device/interrupt_line.h"
#include "device/socket_server.h"

#include <cstdint>

namespace ksweep::device {

struct InterruptStats {
    uint64_t pulses = 0;    // the chip pulsed its line
    uint64_t delivered = 0; // ...while QEMU was connected: an MSI-X message to the guest
};

class IvshmemDoorbell final : public InterruptLine, public SocketPeer {
  public:
    explicit IvshmemDoorbell(LogFn log) : log_(std::move(log)) {}
    ~IvshmemDoorbell() override;
    IvshmemDoorbell(const IvshmemDoorbell&) = delete;
    IvshmemDoorbell& operator=(const IvshmemDoorbell&) = delete;

    void pulse_low() override;

    // SocketPeer: a new QEMU gets its setup at once; then only the connection's end counts.
    void attach(int connection) override;
    void add_poll_fds(std::vector<pollfd>& fds) const override;
    bool handle(std::span<const pollfd> fds) override;

    const InterruptStats& stats() const { return stats_; }
    // One line per pulse, for ksweep-tpmd --trace.
    void set_trace(LogFn trace) { trace_ = std::move(trace); }

  private:
    bool send(int64_t value, int fd);
    void close_all();

    LogFn log_;
    LogFn trace_;
    int connection_ = -1;
    int vector_ = -1; // the eventfd of vector 0: written, it interrupts the guest
    int memory_ = -1; // the shared memory's memfd
    InterruptStats stats_;
};

} // namespace ksweep::device
