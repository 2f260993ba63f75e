// Guest memory handed over by SET_MEM_TABLE: each region's fd is mapped shared (QEMU's memfd or
// /dev/shm backend), and the mappings live until the next table or the end of the connection.
#pragma once

#include "device/vhost_user_protocol.h"
#include "device/virtqueue.h"

#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

class VhostUserMemory {
  public:
    VhostUserMemory() = default;
    VhostUserMemory(const VhostUserMemory&) = delete;
    VhostUserMemory& operator=(const VhostUserMemory&) = delete;
    ~VhostUserMemory() { unmap(); }

    // Replaces the current table. Takes ownership of nothing: the caller closes the fds (the
    // mappings stay valid after close). On error the old table is gone and error() says why.
    bool map(const vhost_user::Memory& table, std::span<const int> fds);
    void unmap();

    const GuestMemory& view() const { return view_; }
    const std::string& error() const { return error_; }

  private:
    struct Mapping {
        void* base;
        size_t length;
    };
    std::vector<Mapping> mappings_;
    GuestMemory view_;
    std::string error_;
};

} // namespace ksweep::device
