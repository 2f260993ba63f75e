#include "device/vhost_user_backend.h"

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

VhostUserBackend::VhostUserBackend(uint64_t device_features, ChainHandler handler, LogFn log)
    : offered_features_(device_features | kVirtioFVersion1 | kFeatureProtocolFeatures |
                        kVirtioRingFIndirectDesc | kVirtioRingFEventIdx),
      handler_(std::move(handler)), log_(std::move(log)) {}

VhostUserBackend::~VhostUserBackend() {
    reset();
}

void VhostUserBackend::reset() {
    close_fd(ring_.kick);
    close_fd(ring_.call);
    ring_ = Vring();
    memory_.unmap();
    acked_features_ = 0;
    protocol_features_ = 0;
}

void VhostUserBackend::detach_ring() {
    // Re-attaching later resumes from here unless SET_VRING_BASE says otherwise.
    if (ring_.queue.attached())
        ring_.base = ring_.queue.next_avail();
    ring_.queue.detach();
}

void VhostUserBackend::stop_ring() {
    detach_ring();
    ring_.enabled = false;
    close_fd(ring_.kick);
}

void VhostUserBackend::replace_fd(int& slot, std::vector<int>& fds, uint64_t payload) {
    close_fd(slot);
    if (!(payload & kVringNoFd) && !fds.empty()) {
        slot = fds.front();
        fds.erase(fds.begin());
    }
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
        reply = as_bytes(kProtocolFeatureReplyAck);
        return true;
    case kSetProtocolFeatures:
        if (!read_payload(payload, u64))
            return false;
        protocol_features_ = u64 & kProtocolFeatureReplyAck;
        return true;
    case kGetQueueNum:
        reply = as_bytes(uint64_t{1});
        return true;
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
        detach_ring();
        if (!memory_.map(table, fds)) {
            log_("vhost-user: SET_MEM_TABLE: " + memory_.error());
            return false;
        }
        return true; // the caller closes the fds; the mappings outlive them
    }
    case kSetVringNum:
    case kSetVringBase:
    case kSetVringEnable:
        if (!read_payload(payload, state) || state.index != 0)
            return false;
        if (header.request == kSetVringNum) {
            if (state.num == 0 || state.num > kMaxQueueSize || (state.num & (state.num - 1)))
                return false;
            detach_ring();
            ring_.num = static_cast<uint16_t>(state.num);
        } else if (header.request == kSetVringBase) {
            detach_ring();
            ring_.base = static_cast<uint16_t>(state.num);
        } else {
            ring_.enabled = state.num != 0;
            // The kick fd came before the enable: requests may already be waiting.
            if (ring_.enabled)
                process_queue();
        }
        return true;
    case kSetVringAddr: {
        VringAddr addr{};
        if (!read_payload(payload, addr) || addr.index != 0)
            return false;
        ring_.addresses = {addr.desc_user_addr, addr.avail_user_addr, addr.used_user_addr};
        ring_.have_addresses = true;
        detach_ring();
        return true;
    }
    case kGetVringBase:
        if (!read_payload(payload, state) || state.index != 0)
            return false;
        stop_ring();
        state.num = ring_.base;
        reply = as_bytes(state);
        return true;
    case kSetVringKick:
    case kSetVringCall:
    case kSetVringErr: {
        if (!read_payload(payload, u64) || (u64 & kVringIndexMask) != 0)
            return false;
        if (header.request == kSetVringKick) {
            replace_fd(ring_.kick, fds, u64);
            process_queue();
        } else if (header.request == kSetVringCall) {
            replace_fd(ring_.call, fds, u64); // QEMU resends it: always use the latest
        }
        return true; // an error fd is not used: the caller closes it
    }
    }
    log_("vhost-user: unsupported request " + std::to_string(header.request));
    return false;
}

bool VhostUserBackend::handle_message(int connection) {
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

void VhostUserBackend::process_queue() {
    if (!ring_.enabled || ring_.kick < 0)
        return;
    const GuestMemory& memory = memory_.view();
    SplitVirtqueue& queue = ring_.queue;
    if (!queue.attached()) {
        if (!ring_.have_addresses || memory.empty() || ring_.num == 0)
            return;
        if (!queue.attach(memory, ring_.addresses, ring_.num, ring_.base)) {
            log_("vhost-user: cannot start queue: " + queue.error());
            return;
        }
    }
    bool used = false;
    do {
        while (auto head = queue.pop()) {
            uint32_t len = handler_(queue.descriptor_table(), *head, memory);
            queue.push(*head, len);
            used = true;
        }
        if (!queue.attached()) {
            log_("vhost-user: queue stopped: " + queue.error());
            break;
        }
    } while (queue.arm_notifications());
    if (used && ring_.call >= 0) {
        uint64_t one = 1;
        if (write(ring_.call, &one, sizeof one) < 0)
            log_(std::string("vhost-user: call eventfd: ") + std::strerror(errno));
    }
}

void VhostUserBackend::add_poll_fds(std::vector<pollfd>& fds) const {
    if (connection_ < 0)
        return;
    fds.push_back({connection_, POLLIN, 0});
    if (ring_.kick >= 0)
        fds.push_back({ring_.kick, POLLIN, 0});
}

bool VhostUserBackend::handle(std::span<const pollfd> fds) {
    for (const pollfd& p : fds)
        if (p.fd == ring_.kick && p.fd != connection_ && (p.revents & POLLIN)) {
            uint64_t n;
            if (read(ring_.kick, &n, sizeof n) == sizeof n)
                ++kicks_;
            process_queue();
        }
    for (const pollfd& p : fds)
        if (p.fd == connection_ && (p.revents & (POLLIN | POLLHUP | POLLERR)) &&
            !handle_message(connection_)) {
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
            return false;
        }
        if (fds[0].revents)
            return false;
        if (!handle(std::span(fds).subspan(1)))
            return true;
    }
}

} // namespace ksweep::device
