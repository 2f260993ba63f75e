// Fuzz target: the guest's gpio-virtio driver writes every virtio-gpio request and interrupt
// buffer, so the input *is* guest memory. Its first 128 bytes are a descriptor table of 8
// entries; each entry is taken as a head in turn, even ones on the requestq, odd ones on the
// eventq (handle_request / handle_event: read_descriptor_chain, the parsers, the line state),
// and the chip pulses the line after each, so kept buffers are completed through the fake
// completion and latched edges are delivered. The memory is a heap block of exactly one page,
// so AddressSanitizer catches any access outside it.
#include "device/virtio_gpio.h"

#include <cstring>
#include <memory>

using namespace ksweep::device;

namespace {

constexpr uint64_t kGuestBase = 0x1000;
constexpr size_t kGuestSize = 4096;
constexpr uint16_t kHeads = 8;

struct Completion final : DeferredCompletion {
    explicit Completion(GuestMemory m) : view(std::move(m)) {}
    const GuestMemory& memory() const override { return view; }
    bool complete(uint16_t queue, uint16_t head, uint32_t used) override {
        // A kept chain goes back on the eventq with its one status byte.
        if (queue != virtio_gpio::kEventQueue || head >= kHeads || used != 1)
            __builtin_trap();
        return true;
    }
    GuestMemory view;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto guest = std::make_unique<uint8_t[]>(kGuestSize);
    std::memcpy(guest.get(), data, std::min(size, kGuestSize));
    GuestMemory memory({{kGuestBase, kGuestSize, 0x7f0000000000, guest.get()}});
    Completion completion(memory);
    VirtioGpioDevice gpio(2, [](const std::string&) {});
    gpio.set_completion(&completion);
    gpio.set_trace([](const std::string&) {});

    std::span<const uint8_t> table(guest.get(), kHeads * kDescSize);
    for (uint16_t head = 0; head < kHeads; ++head) {
        if (head % 2 == 0) {
            // The response is 2 bytes, or 1 where the chain has room for the status only.
            if (gpio.handle_request(table, head, memory) > 2)
                __builtin_trap();
        } else if (auto used = gpio.handle_event(table, head, memory); used && *used > 1) {
            __builtin_trap();
        }
        gpio.line(head % 2).pulse_low();
    }
    gpio.queue_stopped(virtio_gpio::kEventQueue);
    return 0;
}
