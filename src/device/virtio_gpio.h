// virtio-gpio (virtio 1.2, 5.17; uapi linux/virtio_gpio.h) with interrupts (VIRTIO_GPIO_F_IRQ):
// a GPIO controller whose input lines are driven by the chip models (interrupt_line.h), served
// to QEMU's vhost-user-gpio-pci. Two queues:
//   requestq: {le16 type; le16 gpio; le32 value} from the driver, {u8 status; u8 value} back:
//             directions, values and the interrupt trigger type (SET_IRQ_TYPE);
//   eventq:   {le16 gpio} from the driver, {u8 status} back. A buffer on it unmasks the line's
//             interrupt; the device keeps it until the interrupt comes (status VALID) or the
//             interrupt is disabled (INVALID). An edge while the line is enabled but masked (no
//             buffer) is latched and delivered when the buffer comes, as the spec asks.
// Everything the guest writes is parsed by pure functions first (parse_gpio_request,
// parse_gpio_event), which the fuzzer drives.
#pragma once

#include "device/i2c_bus.h"
#include "device/interrupt_line.h"
#include "device/virtqueue.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::device {

inline constexpr uint32_t kVirtioGpioDeviceId = 41;
inline constexpr uint64_t kVirtioGpioFIrq = 1ull << 0;

namespace virtio_gpio {
inline constexpr uint16_t kRequestQueue = 0;
inline constexpr uint16_t kEventQueue = 1;

inline constexpr uint16_t kMsgGetNames = 1;
inline constexpr uint16_t kMsgGetDirection = 2;
inline constexpr uint16_t kMsgSetDirection = 3;
inline constexpr uint16_t kMsgGetValue = 4;
inline constexpr uint16_t kMsgSetValue = 5;
inline constexpr uint16_t kMsgSetIrqType = 6;

inline constexpr uint8_t kStatusOk = 0;
inline constexpr uint8_t kStatusErr = 1;

inline constexpr uint8_t kDirectionNone = 0;
inline constexpr uint8_t kDirectionOut = 1;
inline constexpr uint8_t kDirectionIn = 2;

inline constexpr uint8_t kIrqTypeNone = 0;
inline constexpr uint8_t kIrqTypeEdgeRising = 1;
inline constexpr uint8_t kIrqTypeEdgeFalling = 2;
inline constexpr uint8_t kIrqTypeEdgeBoth = 3;
inline constexpr uint8_t kIrqTypeLevelHigh = 4;
inline constexpr uint8_t kIrqTypeLevelLow = 8;

inline constexpr uint8_t kIrqStatusInvalid = 0;
inline constexpr uint8_t kIrqStatusValid = 1;
} // namespace virtio_gpio

// A requestq chain: the 8-byte request and where the response goes.
struct GpioRequest {
    uint16_t type = 0;
    uint16_t gpio = 0;
    uint32_t value = 0;
    std::vector<Segment> response; // device-writable; `response_len` bytes in all
    uint32_t response_len = 0;
    std::string error; // empty when well-formed; with a response buffer it is still answered
    bool ok() const { return error.empty(); }
};

// An eventq chain: the line it unmasks and its status byte.
struct GpioEvent {
    uint16_t gpio = 0;
    std::optional<Segment> status;
    std::string error;
    bool ok() const { return error.empty(); }
};

GpioRequest parse_gpio_request(const std::vector<Segment>& chain, const GuestMemory& memory);
GpioEvent parse_gpio_event(const std::vector<Segment>& chain, const GuestMemory& memory);

struct GpioStats {
    uint64_t requests = 0;  // requestq chains
    uint64_t malformed = 0; // chains on either queue that were not what the spec says
    uint64_t pulses = 0;    // pulses the chips drove onto the lines
    uint64_t delivered = 0; // interrupts returned to the guest (eventq, VALID)
    uint64_t latched = 0;   // edges that came while the line was masked, delivered later
    uint64_t ignored = 0;   // edges on a line whose interrupt was disabled
};

class VirtioGpioDevice {
  public:
    // `ngpio` input lines, all high and without a trigger type.
    VirtioGpioDevice(uint16_t ngpio, LogFn log);
    VirtioGpioDevice(const VirtioGpioDevice&) = delete;
    VirtioGpioDevice& operator=(const VirtioGpioDevice&) = delete;

    // struct virtio_gpio_config: ngpio, no line names.
    std::vector<uint8_t> config() const;
    uint64_t features() const { return kVirtioGpioFIrq; }

    // Where kept eventq buffers go back (the vhost-user back end); until then none is kept.
    void set_completion(DeferredCompletion* completion) { completion_ = completion; }
    // Each interrupt's fate, for ksweep-tpmd --trace.
    void set_trace(LogFn trace) { trace_ = std::move(trace); }

    uint32_t handle_request(std::span<const uint8_t> table, uint16_t head,
                            const GuestMemory& memory);
    std::optional<uint32_t> handle_event(std::span<const uint8_t> table, uint16_t head,
                                         const GuestMemory& memory);
    // The eventq stopped or the connection reset: its kept buffers are gone.
    void queue_stopped(uint16_t queue);

    // The input line `gpio`, for a chip model to drive.
    InterruptLine& line(uint16_t gpio);
    const GpioStats& stats() const { return stats_; }

  private:
    struct Line {
        uint8_t direction = virtio_gpio::kDirectionIn;
        bool high = true; // an idle interrupt line is pulled up
        uint8_t irq_type = virtio_gpio::kIrqTypeNone;
        bool latched = false;
        std::optional<uint16_t> kept; // the eventq head that unmasks it
        std::optional<Segment> kept_status;
    };
    // What a chip model holds: line `gpio` of this controller.
    class Input final : public InterruptLine {
      public:
        Input(VirtioGpioDevice& device, uint16_t gpio) : device_(device), gpio_(gpio) {}
        void pulse_low() override;

      private:
        VirtioGpioDevice& device_;
        uint16_t gpio_;
    };

    uint8_t respond(const GpioRequest& request, uint8_t& value);
    void set_irq_type(Line& line, uint8_t type);
    void edge(uint16_t gpio, bool rising);
    // Returns the kept eventq buffer of `line` with `status`.
    void give_back(Line& line, uint8_t status);

    LogFn log_;
    LogFn trace_;
    DeferredCompletion* completion_ = nullptr;
    std::vector<Line> lines_;
    std::vector<std::unique_ptr<Input>> inputs_;
    GpioStats stats_;
};

} // namespace ksweep::device
