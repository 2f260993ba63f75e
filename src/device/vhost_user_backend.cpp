#include "device/vhost_user_backend.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ksweep::device {

using namespace vhost_user;

namespace {

// Payloads are small; anything larger is a protocol error, not something to allocate for.
constexpr uint32_t kMaxPayload = 4096;
constexpr uint16_t kMaxQueueSize = 32768;

const char* request_name(uint32_t request) {
    switch (request) {
    case kGetFeatures:
        return "GET_FEATURES";
    case kSetFeatures:
        return "SET_FEATURES";
    case kSetOwner:
        return "SET_OWNER";
    case kResetOwner:
        return "RESET_OWNER";
    case kSetMemTable:
        return "SET_MEM_TABLE";
    case kSetVringNum:
        return "SET_VRING_NUM";
    case kSetVringAddr:
        return "SET_VRING_ADDR";
    case kSetVringBase:
        return "SET_VRING_BASE";
    case kGetVringBase:
        return "GET_VRING_BASE";
    case kSetVringKick:
        return "SET_VRING_KICK";
    case kSetVringCall:
        return "SET_VRING_CALL";
    case kSetVringErr:
        return "SET_VRING_ERR";
    case kGetProtocolFeatures:
        return "GET_PROTOCOL_FEATURES";
    case kSetProtocolFeatures:
        return "SET_PROTOCOL_FEATURES";
    case kGetQueueNum:
        return "GET_QUEUE_NUM";
    case kSetVringEnable:
        return "SET_VRING_ENABLE";
    case kGetConfig:
        return "GET_CONFIG";
    case kSetConfig:
        return "SET_CONFIG";
    }
    return "unknown";
}

template <typename T> bool read_payload(std::span<const uint8_t> payload, T& out) {
    if (payload.size() < sizeof(T))
        return false;
    std::memcpy(&out, payload.data(), sizeof(T));
    return true;
}

template <typename T> std::vector<uint8_t> as_bytes(const T& value) {
    std::vector<uint8_t> bytes(sizeof(T));
    std::memcpy(bytes.data(), &value, sizeof(T));
    return bytes;
}

void close_fd(int& fd) {
    if (fd >= 0)
        close(fd);
    fd = -1;
}

bool read_fully(int fd, uint8_t* data, size_t len) {
    while (len > 0) {
        ssize_t n = recv(fd, data, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

bool send_reply(int fd, uint32_t request, const std::vector<uint8_t>& payload) {
    Header h{request, kVersion | kFlagReply, static_cast<uint32_t>(payload.size())};
    std::vector<uint8_t> msg(sizeof h);
    std::memcpy(msg.data(), &h, sizeof h);
    msg.insert(msg.end(), payload.begin(), payload.end());
    return send(fd, msg.data(), msg.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(msg.size());
}

} // namespace

VhostUserBackend::VhostUserBackend(VhostUserDevice device, LogFn log)
    : device_(std::move(device)),
      offered_features_(device_.features | kVirtioFVersion1 | kFeatureProtocolFeatures |
                        kVirtioRingFIndirectDesc | kVirtioRingFEventIdx),
      offered_protocol_features_(kProtocolFeatureReplyAck |
                                 (device_.config.empty() ? 0 : kProtocolFeatureConfig)),
      log_(std::move(log)), rings_(device_.queues.size()) {}

VhostUserBackend::VhostUserBackend(uint64_t device_features, ChainHandler handler, LogFn log)
    : VhostUserBackend(VhostUserDevice{device_features, {std::move(handler)}, {}}, std::move(log)) {
}

VhostUserBackend::~VhostUserBackend() {
    reset();
}

void VhostUserBackend::reset() {
    for (uint16_t i = 0; i < rings_.size(); ++i) {
        close_fd(rings_[i].kick);
        close_fd(rings_[i].call);
        rings_[i] = Vring();
        if (device_.queue_stopped)
            device_.queue_stopped(i);
    }
    memory_.unmap();
    acked_features_ = 0;
    protocol_features_ = 0;
}

VhostUserBackend::Vring* VhostUserBackend::ring(uint32_t index) {
    return index < rings_.size() ? &rings_[index] : nullptr;
}

void VhostUserBackend::detach_ring(Vring& vring) {
    // Re-attaching later resumes from here unless SET_VRING_BASE says otherwise.
    if (vring.queue.attached())
        vring.base = vring.queue.next_avail();
    vring.queue.detach();
}

void VhostUserBackend::stop_ring(uint16_t index) {
    Vring& vring = rings_[index];
    detach_ring(vring);
    vring.enabled = false;
    close_fd(vring.kick);
    if (device_.queue_stopped)
        device_.queue_stopped(index);
}

void VhostUserBackend::replace_fd(int& slot, std::vector<int>& fds, uint64_t payload) {
    close_fd(slot);
    if (!(payload & kVringNoFd) && !fds.empty()) {
        slot = fds.front();
        fds.erase(fds.begin());
    }
}

bool VhostUserBackend::get_config(std::span<const uint8_t> payload,
                                  std::vector<uint8_t>& reply) const {
    ConfigHeader header{};
    if (!read_payload(payload, header) || header.size > kMaxConfigSize ||
        payload.size() != sizeof header + header.size || header.offset > device_.config.size() ||
        header.size > device_.config.size() - header.offset)
        return false;
    // The reply is the request with the region filled in (QEMU checks its size).
    reply.assign(payload.begin(), payload.end());
    std::copy_n(device_.config.begin() + header.offset, header.size, reply.begin() + sizeof header);
    return true;
}

bool VhostUserBackend::dispatch(const Header& header, std::span<const uint8_t> payload,
                                std::vector<int>& fds, std::vector<uint8_t>& reply) {
    uint64_t u64 = 0;
    VringState state{};
    switch (header.request) {
    case kGetFeatures:
        reply = as_bytes(offered_features_);
        return true;
    case kSetFeatures:
        if (!read_payload(payload, u64))
            return false;
        acked_features_ = u64;
        return true;
    case kGetProtocolFeatures:
        reply = as_bytes(offered_protocol_features_);
        return true;
    case kSetProtocolFeatures:
        if (!read_payload(payload, u64))
            return false;
        protocol_features_ = u64 & offered_protocol_features_;
        return true;
    case kGetQueueNum:
        reply = as_bytes(uint64_t{rings_.size()});
        return true;
    case kGetConfig:
        return (protocol_features_ & kProtocolFeatureConfig) && get_config(payload, reply);
    case kSetConfig:
        // The config space is the device's, read-only for the driver (virtio-gpio's is).
        return false;
    case kSetOwner:
        return true;
    case kResetOwner:
        reset();
        return true;
    case kSetMemTable: {
        Memory table{};
        if (payload.size() < 8)
            return false;
        std::memcpy(&table, payload.data(), std::min(payload.size(), sizeof table));
        if (table.nregions > kMaxMemoryRegions || payload.size() < 8 + 32 * table.nregions)
            return false;
        // The ring pointers point into the old mappings: re-resolve them on the next kick.
        for (Vring& vring : rings_)
            detach_ring(vring);
        if (!memory_.map(table, fds)) {
            log_("vhost-user: SET_MEM_TABLE: " + memory_.error());
            return false;
        }
        return true; // the caller closes the fds; the mappings outlive them
    }
    case kSetVringNum:
    case kSetVringBase:
    case kSetVringEnable: {
        if (!read_payload(payload, state))
            return false;
        Vring* vring = ring(state.index);
        if (!vring)
            return false;
        if (header.request == kSetVringNum) {
            if (state.num == 0 || state.num > kMaxQueueSize || (state.num & (state.num - 1)))
                return false;
            detach_ring(*vring);
            vring->num = static_cast<uint16_t>(state.num);
        } else if (header.request == kSetVringBase) {
            detach_ring(*vring);
            vring->base = static_cast<uint16_t>(state.num);
        } else {
            vring->enabled = state.num != 0;
            // The kick fd came before the enable: requests may already be waiting.
            if (vring->enabled)
                process_queue(static_cast<uint16_t>(state.index));
        }
        return true;
    }
    case kSetVringAddr: {
        VringAddr addr{};
        Vring* vring = read_payload(payload, addr) ? ring(addr.index) : nullptr;
        if (!vring)
            return false;
        vring->addresses = {addr.desc_user_addr, addr.avail_user_addr, addr.used_user_addr};
        vring->have_addresses = true;
        detach_ring(*vring);
        return true;
    }
    case kGetVringBase: {
        if (!read_payload(payload, state) || !ring(state.index))
            return false;
        stop_ring(static_cast<uint16_t>(state.index));
        state.num = rings_[state.index].base;
        reply = as_bytes(state);
        return true;
    }
    case kSetVringKick:
    case kSetVringCall:
    case kSetVringErr: {
        Vring* vring = read_payload(payload, u64) ? ring(u64 & kVringIndexMask) : nullptr;
        if (!vring)
            return false;
        if (header.request == kSetVringKick) {
            replace_fd(vring->kick, fds, u64);
            process_queue(static_cast<uint16_t>(u64 & kVringIndexMask));
        } else if (header.request == kSetVringCall) {
            replace_fd(vring->call, fds, u64); // QEMU resends it: always use the latest
        }
        return true; // an error fd is not used: the caller closes it
    }
    }
    log_("vhost-user: unsupported request " + std::to_string(header.request));
    return false;
}

bool VhostUserBackend::handle_message() {
    int connection = connection_;
    Header header{};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    iovec iov{&header, sizeof header};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n;
    do {
        n = recvmsg(connection, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    } while (n < 0 && errno == EINTR);
    std::vector<int> fds;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < count; ++i) {
                int fd;
                std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                fds.push_back(fd);
            }
        }
    auto close_all = [&] {
        for (int& fd : fds)
            close_fd(fd);
    };
    if (n != static_cast<ssize_t>(sizeof header)) {
        close_all();
        if (n != 0)
            log_("vhost-user: short message header");
        return false;
    }
    if (header.size > kMaxPayload) {
        log_("vhost-user: payload of " + std::to_string(header.size) + " bytes refused");
        close_all();
        return false;
    }
    std::vector<uint8_t> payload(header.size);
    if (!read_fully(connection, payload.data(), payload.size())) {
        log_("vhost-user: truncated payload");
        close_all();
        return false;
    }
    std::vector<uint8_t> reply;
    bool ok = dispatch(header, payload, fds, reply);
    close_all(); // fds the handler did not keep
    if (!ok)
        log_(std::string("vhost-user: bad ") + request_name(header.request) + " message");
    if (reply.empty() && (header.flags & kFlagNeedReply) &&
        (protocol_features_ & kProtocolFeatureReplyAck))
        reply = as_bytes(uint64_t{ok ? 0u : 1u});
    if (!reply.empty() && !send_reply(connection, header.request, reply)) {
        log_("vhost-user: cannot send reply");
        return false;
    }
    return true;
}

bool VhostUserBackend::start_queue(uint16_t index) {
    Vring& vring = rings_[index];
    if (!vring.enabled || vring.kick < 0)
        return false;
    if (vring.queue.attached())
        return true;
    const GuestMemory& memory = memory_.view();
    if (!vring.have_addresses || memory.empty() || vring.num == 0)
        return false;
    if (!vring.queue.attach(memory, vring.addresses, vring.num, vring.base)) {
        log_("vhost-user: cannot start queue " + std::to_string(index) + ": " +
             vring.queue.error());
        return false;
    }
    return true;
}

void VhostUserBackend::notify(Vring& vring) {
    if (vring.call < 0)
        return;
    uint64_t one = 1;
    if (write(vring.call, &one, sizeof one) < 0)
        log_(std::string("vhost-user: call eventfd: ") + std::strerror(errno));
}

void VhostUserBackend::process_queue(uint16_t index) {
    if (!start_queue(index))
        return;
    Vring& vring = rings_[index];
    SplitVirtqueue& queue = vring.queue;
    bool used = false;
    do {
        while (auto head = queue.pop()) {
            std::optional<uint32_t> len =
                device_.queues[index](queue.descriptor_table(), *head, memory_.view());
            if (len) {
                queue.push(*head, *len);
                used = true;
            }
        }
        if (!queue.attached()) {
            log_("vhost-user: queue " + std::to_string(index) + " stopped: " + queue.error());
            break;
        }
    } while (queue.arm_notifications());
    if (used)
        notify(vring);
}

bool VhostUserBackend::complete(uint16_t queue, uint16_t head, uint32_t used) {
    // A new memory table detaches the rings; the chain is still the guest's to get back.
    if (queue >= rings_.size() || !start_queue(queue))
        return false;
    rings_[queue].queue.push(head, used);
    notify(rings_[queue]);
    return true;
}

void VhostUserBackend::attach(int connection) {
    connection_ = connection;
}

void VhostUserBackend::add_poll_fds(std::vector<pollfd>& fds) const {
    if (connection_ < 0)
        return;
    fds.push_back({connection_, POLLIN, 0});
    for (const Vring& vring : rings_)
        if (vring.kick >= 0)
            fds.push_back({vring.kick, POLLIN, 0});
}

bool VhostUserBackend::handle(std::span<const pollfd> fds) {
    for (const pollfd& p : fds) {
        if (p.fd == connection_ || !(p.revents & POLLIN))
            continue;
        for (uint16_t i = 0; i < rings_.size(); ++i) {
            if (rings_[i].kick != p.fd)
                continue;
            uint64_t n;
            if (read(p.fd, &n, sizeof n) == sizeof n)
                ++kicks_;
            process_queue(i);
        }
    }
    for (const pollfd& p : fds)
        if (p.fd == connection_ && (p.revents & (POLLIN | POLLHUP | POLLERR)) &&
            !handle_message()) {
            reset();
            connection_ = -1;
            return false;
        }
    return true;
}

bool VhostUserBackend::serve(int connection, int stop_fd) {
    attach(connection);
    for (;;) {
        std::vector<pollfd> fds{{stop_fd, POLLIN, 0}};
        add_poll_fds(fds);
        if (poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR)
                continue;
            log_(std::string("vhost-user: poll: ") + std::strerror(errno));
            connection_ = -1;
            return false;
        }
        if (fds[0].revents) {
            connection_ = -1;
            return false;
        }
        if (!handle(std::span(fds).subspan(1)))
            return true;
    }
}

} // namespace ksweep::device
