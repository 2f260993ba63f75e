// Fuzz target: the guest controls all of guest memory, so the input *is* guest memory. Its
// first 64 bytes are a descriptor table of 4 entries; each entry is taken as a request head in
// turn and runs through read_descriptor_chain, parse_i2c_request and the I2C bus into the
// chip models, one at each model's address: the Nuvoton (0x2e), the ST33ZP24 (0x13) and the
// cr50 (at 0x51 here, its interrupt line wired and its polling switches on) register parsers,
// the table model with the shipped device files loaded (register framing: ak8974 at 0x0e, srf08
// at 0x70; command framing: hmc6352 at 0x21, max6900 at 0x50, the cr50's own address; their
// rules, busy periods and NACKs), and the counters at 0x7f. The memory is a heap block of
// exactly the input's size (rounded up to one page), so AddressSanitizer catches any access
// outside it.
#include "device/cr50_tpm.h"
#include "device/device_spec.h"
#include "device/nuvoton_tpm.h"
#include "device/st33zp24_tpm.h"
#include "device/stats_device.h"
#include "device/table_device.h"
#include "device/virtio_i2c.h"

#include <cstring>
#include <memory>

using namespace ksweep::device;

namespace {

constexpr uint64_t kGuestBase = 0x1000;
constexpr size_t kGuestSize = 4096;
constexpr uint16_t kQueueSize = 4;
// The cr50's own address (0x50) is the max6900's too; one bus cannot hold both.
constexpr uint16_t kCr50Address = 0x51;

struct CountingLine final : InterruptLine {
    void pulse_low() override { ++pulses; }
    uint64_t pulses = 0;
};

struct EchoTpm final : TpmEngine {
    std::vector<uint8_t> execute(std::span<const uint8_t> command) override {
        std::vector<uint8_t> rsp(command.begin(), command.end());
        if (rsp.size() < 10)
            rsp = tpm_error_response(TpmFamily::tpm20, 0x101);
        return rsp;
    }
};

// The device files and their profiles, loaded once (a loader error is a bug of the shipped
// files, which the unit tests report; here it aborts).
struct Described {
    std::vector<DeviceSpec> specs;
    std::vector<DeviceProfile> profiles;
    Described() {
        for (const char* name : {"ak8974", "srf08", "hmc6352", "rtc-max6900"}) {
            specs.push_back(
                load_device_spec(std::string(KSWEEP_SOURCE_DIR) + "/devices/" + name + ".yaml"));
            profiles.push_back(load_device_profile(specs.back().profile));
            // Strict too: the requirement checks run on every access.
            profiles.back().requirements.min_poll_interval = std::chrono::microseconds(50);
            profiles.back().requirements.min_write_idle = std::chrono::microseconds(50);
        }
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto guest = std::make_unique<uint8_t[]>(kGuestSize);
    std::memcpy(guest.get(), data, std::min(size, kGuestSize));
    GuestMemory memory({{kGuestBase, kGuestSize, 0x7f0000000000, guest.get()}});

    ManualClock clock;
    EchoTpm engine;
    DeviceProfile profile;
    profile.default_command_time = std::chrono::microseconds(100);
    profile.command_ready_time = std::chrono::microseconds(40);
    profile.requirements.min_status_gap = std::chrono::microseconds(50);
    profile.requirements.min_ready_poll_interval = std::chrono::microseconds(50);
    profile.requirements.min_ready_write_gap = std::chrono::microseconds(50);
    profile.locality_grant_time = std::chrono::microseconds(40);
    profile.access_request_pending = true;
    profile.busy_after_fifo_write = std::chrono::microseconds(20);
    profile.no_burst_after_fifo_write = std::chrono::microseconds(60);
    auto quiet = [](const std::string&) {};
    NuvotonTpm nuvoton(clock, engine, profile, quiet);
    St33zp24Tpm st33(clock, engine, profile, quiet);
    Cr50Tpm cr50(clock, engine, profile, quiet);
    CountingLine line;
    cr50.wire_interrupt(line);
    I2cBus bus(clock);
    bus.attach(nuvoton::kDefaultAddress, nuvoton);
    bus.attach(st33zp24::kDefaultAddress, st33);
    bus.attach(kCr50Address, cr50);
    static const Described described;
    std::vector<std::unique_ptr<TableDevice>> chips;
    for (size_t i = 0; i < described.specs.size(); ++i) {
        chips.push_back(
            std::make_unique<TableDevice>(clock, described.specs[i], described.profiles[i], quiet));
        if (!bus.attach(described.specs[i].address, *chips.back()))
            __builtin_trap(); // two chips at one address: the fuzzer would miss one
    }
    StatsDevice counters(
        [&] { return format_table_stats_json("fuzz", chips.front()->stats(), TransportStats{}); });
    bus.attach(kStatsAddress, counters);
    VirtioI2cDevice i2c(bus, quiet);

    std::span<const uint8_t> table(guest.get(), kQueueSize * kDescSize);
    for (uint16_t head = 0; head < kQueueSize; ++head) {
        uint32_t used = i2c.handle(table, head, memory);
        // The used length never exceeds the longest message plus its status byte. Not the guest
        // memory: a chain's device-writable buffers may overlap (the fuzzer found a 4106-byte
        // read into 4 KiB, acknowledged by the ST33ZP24 model, which never NACKs), and virtio
        // counts every byte written.
        if (used > kMaxI2cMessage + 1)
            __builtin_trap();
        clock.advance(std::chrono::microseconds(30));
    }
    return 0;
}
