#include "device/virtio_gpio.h"

#include <algorithm>
#include <cstring>

namespace ksweep::device {

using namespace virtio_gpio;

namespace {

constexpr size_t kRequestSize = 8;      // struct virtio_gpio_request
constexpr size_t kResponseSize = 2;     // struct virtio_gpio_response
constexpr size_t kEventRequestSize = 2; // struct virtio_gpio_irq_request
// Bounds what a malformed chain can make the device look at; a real response is 2 bytes.
constexpr uint32_t kMaxResponse = 256;

// Splits a chain into its readable bytes (at most `limit`) and its writable segments.
std::string split_chain(const std::vector<Segment>& chain, const GuestMemory& memory, size_t limit,
                        std::vector<uint8_t>& readable, std::vector<Segment>& writable,
                        uint64_t& writable_len) {
    std::vector<Segment> in;
    writable_len = 0;
    for (const auto& s : chain) {
        if (s.device_writable) {
            writable.push_back(s);
            writable_len += s.len;
        } else {
            in.push_back(s);
        }
    }
    if (!gather_readable(in, memory, limit, readable))
        return "driver buffers too long or outside guest memory";
    return "";
}

void write_byte(const GuestMemory& memory, const Segment& at, uint8_t value) {
    if (auto dst = memory.translate(at.guest_phys, 1))
        (*dst)[0] = value;
}

bool valid_irq_type(uint32_t type) {
    return type == kIrqTypeNone || type == kIrqTypeEdgeRising || type == kIrqTypeEdgeFalling ||
           type == kIrqTypeEdgeBoth || type == kIrqTypeLevelHigh || type == kIrqTypeLevelLow;
}

} // namespace

GpioRequest parse_gpio_request(const std::vector<Segment>& chain, const GuestMemory& memory) {
    GpioRequest req;
    std::vector<uint8_t> in;
    uint64_t writable_len = 0;
    req.error = split_chain(chain, memory, kRequestSize, in, req.response, writable_len);
    // Even a malformed request is answered (ERR) where it has somewhere to put the answer.
    req.response_len = static_cast<uint32_t>(std::min<uint64_t>(writable_len, kMaxResponse));
    if (!req.error.empty())
        return req;
    if (writable_len == 0)
        req.error = "no response buffer";
    else if (in.size() != kRequestSize)
        req.error = "request of " + std::to_string(in.size()) + " bytes, not 8";
    else if (writable_len < kResponseSize)
        req.error = "response buffer shorter than 2 bytes";
    if (in.size() == kRequestSize) {
        std::memcpy(&req.type, in.data(), 2);
        std::memcpy(&req.gpio, in.data() + 2, 2);
        std::memcpy(&req.value, in.data() + 4, 4);
    }
    return req;
}

GpioEvent parse_gpio_event(const std::vector<Segment>& chain, const GuestMemory& memory) {
    GpioEvent event;
    std::vector<uint8_t> in;
    std::vector<Segment> out;
    uint64_t writable_len = 0;
    event.error = split_chain(chain, memory, kEventRequestSize, in, out, writable_len);
    if (!event.error.empty())
        return event;
    // Zero-length segments carry nothing: the status is the first writable byte.
    auto first = std::find_if(out.begin(), out.end(), [](const Segment& s) { return s.len > 0; });
    if (first == out.end()) {
        event.error = "no status buffer";
        return event;
    }
    event.status = Segment{first->guest_phys, 1, true};
    if (in.size() != kEventRequestSize)
        event.error = "interrupt request of " + std::to_string(in.size()) + " bytes, not 2";
    else
        std::memcpy(&event.gpio, in.data(), 2);
    return event;
}

VirtioGpioDevice::VirtioGpioDevice(uint16_t ngpio, LogFn log)
    : log_(std::move(log)), lines_(ngpio) {
    for (uint16_t i = 0; i < ngpio; ++i)
        inputs_.push_back(std::make_unique<Input>(*this, i));
}

std::vector<uint8_t> VirtioGpioDevice::config() const {
    std::vector<uint8_t> config(8, 0); // le16 ngpio, 2 bytes padding, le32 gpio_names_size = 0
    auto ngpio = static_cast<uint16_t>(lines_.size());
    std::memcpy(config.data(), &ngpio, 2);
    return config;
}

InterruptLine& VirtioGpioDevice::line(uint16_t gpio) {
    return *inputs_.at(gpio);
}

uint8_t VirtioGpioDevice::respond(const GpioRequest& r, uint8_t& value) {
    value = 0;
    if (r.gpio >= lines_.size())
        return kStatusErr;
    Line& line = lines_[r.gpio];
    switch (r.type) {
    case kMsgGetDirection:
        value = line.direction;
        return kStatusOk;
    case kMsgSetDirection:
        if (r.value != kDirectionNone && r.value != kDirectionOut && r.value != kDirectionIn)
            return kStatusErr;
        if (r.value == kDirectionNone)
            set_irq_type(line, kIrqTypeNone); // the spec: all state of the line is discarded
        line.direction = static_cast<uint8_t>(r.value);
        return kStatusOk;
    case kMsgGetValue:
        value = line.high;
        return kStatusOk;
    case kMsgSetValue:
        // The lines are the chips' outputs: only one the driver turned around takes a value.
        if (line.direction != kDirectionOut || r.value > 1)
            return kStatusErr;
        line.high = r.value != 0;
        return kStatusOk;
    case kMsgSetIrqType:
        if (!valid_irq_type(r.value) || line.direction == kDirectionOut)
            return kStatusErr;
        set_irq_type(line, static_cast<uint8_t>(r.value));
        return kStatusOk;
    default: // GET_NAMES too: the config says there are none
        return kStatusErr;
    }
}

uint32_t VirtioGpioDevice::handle_request(std::span<const uint8_t> table, uint16_t head,
                                          const GuestMemory& memory) {
    ++stats_.requests;
    ChainResult chain = read_descriptor_chain(table, head, memory);
    if (!chain.ok()) {
        ++stats_.malformed;
        log_("virtio-gpio: dropped request " + std::to_string(head) + ": " + chain.error);
        return 0;
    }
    GpioRequest req = parse_gpio_request(chain.segments, memory);
    uint8_t response[kResponseSize] = {kStatusErr, 0};
    if (!req.ok()) {
        ++stats_.malformed;
        log_("virtio-gpio: bad request " + std::to_string(head) + ": " + req.error);
        if (req.response_len == 0)
            return 0;
    } else {
        response[0] = respond(req, response[1]);
    }
    uint32_t used = std::min<uint32_t>(req.response_len, kResponseSize);
    scatter_writable(req.response, memory, std::span(response, used));
    return used;
}

std::optional<uint32_t> VirtioGpioDevice::handle_event(std::span<const uint8_t> table,
                                                       uint16_t head, const GuestMemory& memory) {
    ChainResult chain = read_descriptor_chain(table, head, memory);
    if (!chain.ok()) {
        ++stats_.malformed;
        log_("virtio-gpio: dropped interrupt buffer " + std::to_string(head) + ": " + chain.error);
        return 0;
    }
    GpioEvent event = parse_gpio_event(chain.segments, memory);
    std::string refused = event.error;
    if (refused.empty() && event.gpio >= lines_.size())
        refused = "interrupt buffer for line " + std::to_string(event.gpio) + " of " +
                  std::to_string(lines_.size());
    else if (refused.empty() && lines_[event.gpio].kept)
        refused = "a second interrupt buffer for line " + std::to_string(event.gpio);
    if (!refused.empty()) {
        ++stats_.malformed;
        log_("virtio-gpio: bad interrupt buffer " + std::to_string(head) + ": " + refused);
        if (!event.status)
            return 0;
        write_byte(memory, *event.status, kIrqStatusInvalid);
        return 1;
    }
    Line& line = lines_[event.gpio];
    // Unmasked without being enabled: returned at once (the spec's "should").
    if (line.irq_type == kIrqTypeNone || !completion_) {
        write_byte(memory, *event.status, kIrqStatusInvalid);
        return 1;
    }
    bool level_active = (line.irq_type == kIrqTypeLevelLow && !line.high) ||
                        (line.irq_type == kIrqTypeLevelHigh && line.high);
    if (line.latched || level_active) {
        line.latched = false;
        ++stats_.delivered;
        write_byte(memory, *event.status, kIrqStatusValid);
        return 1;
    }
    line.kept = head;
    line.kept_status = event.status;
    return std::nullopt;
}

void VirtioGpioDevice::queue_stopped(uint16_t queue) {
    if (queue != kEventQueue)
        return;
    for (Line& line : lines_) {
        line.kept.reset();
        line.kept_status.reset();
    }
}

void VirtioGpioDevice::give_back(Line& line, uint8_t status) {
    if (!line.kept || !completion_)
        return;
    write_byte(completion_->memory(), *line.kept_status, status);
    if (!completion_->complete(kEventQueue, *line.kept, 1))
        log_("virtio-gpio: the event queue is gone; interrupt buffer dropped");
    line.kept.reset();
    line.kept_status.reset();
}

void VirtioGpioDevice::set_irq_type(Line& line, uint8_t type) {
    line.irq_type = type;
    if (type == kIrqTypeNone) {
        line.latched = false;
        give_back(line, kIrqStatusInvalid);
    }
}

void VirtioGpioDevice::edge(uint16_t gpio, bool rising) {
    Line& line = lines_[gpio];
    uint8_t type = line.irq_type;
    bool triggers =
        rising
            ? (type == kIrqTypeEdgeRising || type == kIrqTypeEdgeBoth || type == kIrqTypeLevelHigh)
            : (type == kIrqTypeEdgeFalling || type == kIrqTypeEdgeBoth || type == kIrqTypeLevelLow);
    std::string what = std::string("gpio ") + std::to_string(gpio) +
                       (rising ? " rising edge: " : " falling edge: ");
    if (type == kIrqTypeNone) {
        ++stats_.ignored;
        if (trace_ && !rising)
            trace_(what + "ignored (interrupt disabled)");
        return;
    }
    if (!triggers)
        return;
    if (line.kept) {
        ++stats_.delivered;
        give_back(line, kIrqStatusValid);
        if (trace_)
            trace_(what + "interrupt delivered");
    } else if (type != kIrqTypeLevelHigh && type != kIrqTypeLevelLow) {
        // Enabled but masked (no buffer yet): an edge is kept until the buffer comes.
        ++stats_.latched;
        line.latched = true;
        if (trace_)
            trace_(what + "latched (masked)");
    }
}

void VirtioGpioDevice::Input::pulse_low() {
    ++device_.stats_.pulses;
    device_.lines_[gpio_].high = false;
    device_.edge(gpio_, false);
    device_.lines_[gpio_].high = true;
    device_.edge(gpio_, true);
}

} // namespace ksweep::device
