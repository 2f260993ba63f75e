// The virtio-gpio device as gpio-virtio (Linux 6.1, 6.12) drives it: the requests its probe and
// its interrupt controller send, the eventq buffers that unmask a line, interrupts delivered,
// latched while masked and dropped when disabled, and malformed chains answered with an error.
#include "device/virtio_gpio.h"
#include "guest_ram.h"

#include <gtest/gtest.h>
#include <vector>

namespace ksweep::device {
namespace {

using namespace testing;
using namespace virtio_gpio;

// The vhost-user back end's side of a kept chain: what came back, in order.
struct RecordedCompletion final : DeferredCompletion {
    explicit RecordedCompletion(GuestMemory memory) : view(std::move(memory)) {}
    const GuestMemory& memory() const override { return view; }
    bool complete(uint16_t queue, uint16_t head, uint32_t used) override {
        completed.push_back({queue, head, used});
        return true;
    }
    struct Done {
        uint16_t queue, head;
        uint32_t used;
    };
    GuestMemory view;
    std::vector<Done> completed;
};

struct VirtioGpioTest : ::testing::Test {
    std::vector<uint8_t> ram = std::vector<uint8_t>(0x4000);
    GuestRam guest{ram.data(), ram.size()};
    RecordedCompletion completion{guest.memory()};
    std::vector<std::string> log, trace;
    VirtioGpioDevice gpio{1, [this](const std::string& l) { log.push_back(l); }};

    void SetUp() override {
        gpio.set_completion(&completion);
        gpio.set_trace([this](const std::string& l) { trace.push_back(l); });
    }

    // A requestq chain at descriptor `head`: the request at 0x1000 + 0x40 * head, the response
    // 0x20 after it. Returns {status, value}.
    std::pair<uint8_t, uint8_t> request(uint16_t type, uint16_t gpio_line, uint32_t value,
                                        uint16_t head = 0, uint32_t response_len = 2) {
        uint64_t at = GuestRam::kData + 0x40 * head;
        guest.put<uint16_t>(at, type);
        guest.put<uint16_t>(at + 2, gpio_line);
        guest.put<uint32_t>(at + 4, value);
        guest.put<uint16_t>(at + 0x20, 0xeeee);
        guest.desc(GuestRam::kDesc, head, GuestRam::kBase + at, 8, kDescNext, head + 1);
        guest.desc(GuestRam::kDesc, head + 1, GuestRam::kBase + at + 0x20, response_len,
                   kDescWrite);
        used = gpio.handle_request(table(), head, guest.memory());
        return {guest.get<uint8_t>(at + 0x20), guest.get<uint8_t>(at + 0x21)};
    }
    // An eventq buffer for `gpio_line` at descriptor 2; returns what the handler returned and
    // leaves the status byte's offset in `event_status`.
    std::optional<uint32_t> unmask(uint16_t gpio_line, uint16_t head = 2) {
        uint64_t at = GuestRam::kData + 0x200 + 0x40 * head;
        event_status = at + 0x20;
        guest.put<uint16_t>(at, gpio_line);
        guest.put<uint8_t>(event_status, 0xee);
        guest.desc(GuestRam::kDesc, head, GuestRam::kBase + at, 2, kDescNext, head + 1);
        guest.desc(GuestRam::kDesc, head + 1, GuestRam::kBase + event_status, 1, kDescWrite);
        return gpio.handle_event(table(), head, guest.memory());
    }
    uint8_t event_byte() const { return guest.get<uint8_t>(event_status); }
    // Room for three chains of two descriptors (the rings start at 0x100).
    std::span<const uint8_t> table() const { return {ram.data() + GuestRam::kDesc, 8 * kDescSize}; }

    uint32_t used = 0;
    uint64_t event_status = 0;
};

TEST_F(VirtioGpioTest, ConfigHasOneLineAndNoNames) {
    auto config = gpio.config();
    ASSERT_EQ(config.size(), 8u);
    EXPECT_EQ(config[0] | config[1] << 8, 1);
    EXPECT_EQ(config[4] | config[5] << 8 | config[6] << 16 | config[7] << 24, 0);
    EXPECT_EQ(gpio.features(), kVirtioGpioFIrq);
}

TEST_F(VirtioGpioTest, ProbeSeesAnInputLineThatIsHigh) {
    EXPECT_EQ(request(kMsgGetDirection, 0, 0), std::pair(kStatusOk, kDirectionIn));
    EXPECT_EQ(used, 2u);
    EXPECT_EQ(request(kMsgGetValue, 0, 0), std::pair(kStatusOk, uint8_t{1}));
    EXPECT_EQ(request(kMsgGetDirection, 1, 0).first, kStatusErr) << "one line only";
    EXPECT_EQ(request(kMsgGetNames, 0, 0).first, kStatusErr) << "the config names none";
    EXPECT_EQ(request(kMsgSetValue, 0, 1).first, kStatusErr) << "an input";
    EXPECT_EQ(request(kMsgSetIrqType, 0, 5).first, kStatusErr) << "no such trigger type";
}

TEST_F(VirtioGpioTest, FallingEdgeCompletesTheKeptBuffer) {
    EXPECT_EQ(request(kMsgSetIrqType, 0, kIrqTypeEdgeFalling).first, kStatusOk);
    EXPECT_EQ(unmask(0), std::nullopt) << "kept until the interrupt";
    gpio.line(0).pulse_low();
    ASSERT_EQ(completion.completed.size(), 1u);
    EXPECT_EQ(completion.completed[0].queue, kEventQueue);
    EXPECT_EQ(completion.completed[0].head, 2);
    EXPECT_EQ(completion.completed[0].used, 1u);
    EXPECT_EQ(event_byte(), kIrqStatusValid);
    EXPECT_EQ(gpio.stats().delivered, 1u);
    ASSERT_EQ(trace.size(), 1u);
    EXPECT_EQ(trace[0], "gpio 0 falling edge: interrupt delivered");
    // The interrupt is masked until the next buffer: the next pulse is latched...
    gpio.line(0).pulse_low();
    EXPECT_EQ(gpio.stats().latched, 1u);
    // ...and delivered the moment the buffer comes.
    EXPECT_EQ(unmask(0), 1u);
    EXPECT_EQ(event_byte(), kIrqStatusValid);
    EXPECT_EQ(gpio.stats().delivered, 2u);
}

TEST_F(VirtioGpioTest, DisablingReturnsTheBufferInvalidAndForgetsTheLatch) {
    request(kMsgSetIrqType, 0, kIrqTypeEdgeFalling);
    EXPECT_EQ(unmask(0), std::nullopt);
    EXPECT_EQ(request(kMsgSetIrqType, 0, kIrqTypeNone).first, kStatusOk);
    ASSERT_EQ(completion.completed.size(), 1u);
    EXPECT_EQ(event_byte(), kIrqStatusInvalid);
    // Disabled: a pulse is nobody's interrupt, and it is not kept for later.
    gpio.line(0).pulse_low();
    EXPECT_EQ(gpio.stats().ignored, 2u) << "both edges";
    request(kMsgSetIrqType, 0, kIrqTypeEdgeFalling);
    EXPECT_EQ(unmask(0), std::nullopt);
    EXPECT_EQ(completion.completed.size(), 1u);
}

TEST_F(VirtioGpioTest, RisingEdgeTypeIgnoresTheFallingEdge) {
    request(kMsgSetIrqType, 0, kIrqTypeEdgeRising);
    unmask(0);
    gpio.line(0).pulse_low();
    ASSERT_EQ(trace.size(), 1u);
    EXPECT_EQ(trace[0], "gpio 0 rising edge: interrupt delivered");
}

TEST_F(VirtioGpioTest, UnmaskWithoutEnableIsReturnedAtOnce) {
    EXPECT_EQ(unmask(0), 1u);
    EXPECT_EQ(event_byte(), kIrqStatusInvalid);
}

TEST_F(VirtioGpioTest, StoppedQueueDropsTheKeptBuffer) {
    request(kMsgSetIrqType, 0, kIrqTypeEdgeFalling);
    unmask(0);
    gpio.queue_stopped(kEventQueue);
    gpio.line(0).pulse_low();
    EXPECT_TRUE(completion.completed.empty());
    EXPECT_EQ(gpio.stats().latched, 1u);
}

TEST_F(VirtioGpioTest, MalformedChainsAreAnsweredOrDroppedNeverTrusted) {
    // A request with a 1-byte response buffer: ERR in the one byte there is.
    EXPECT_EQ(request(kMsgGetValue, 0, 0, 0, 1).first, kStatusErr);
    EXPECT_EQ(used, 1u);
    // An eventq buffer for a line that does not exist, and a second one for line 0.
    EXPECT_EQ(unmask(7), 1u);
    EXPECT_EQ(event_byte(), kIrqStatusInvalid);
    request(kMsgSetIrqType, 0, kIrqTypeEdgeFalling);
    EXPECT_EQ(unmask(0, 2), std::nullopt);
    EXPECT_EQ(unmask(0, 4), 1u);
    EXPECT_EQ(event_byte(), kIrqStatusInvalid);
    // A request whose only buffer is readable: nothing to answer into.
    guest.desc(GuestRam::kDesc, 0, GuestRam::kBase + GuestRam::kData, 8, 0);
    EXPECT_EQ(gpio.handle_request(table(), 0, guest.memory()), 0u);
    EXPECT_EQ(gpio.stats().malformed, 4u);
    EXPECT_EQ(log.size(), 4u);
}

} // namespace
} // namespace ksweep::device
