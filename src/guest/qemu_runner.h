// One validation boot: start ksweep-tpmd (the emulated I2C chip the device registry names,
// behind vhost-user-i2c, with its interrupt line behind ivshmem-doorbell when the boot wires it),
// boot the guest kernel with the guest initramfs in QEMU under TCG, read the guest's console until
// it powers off or the timeout kills it, then check the final PCR against the host's hash chain (a
// TPM) or every value read against the device file. Every log stays in the run directory.
#pragma once

#include "device/device_registry.h"
#include "guest/guest_device_stats.h"
#include "guest/guest_output.h"
#include "guest/pcr_check.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::guest {

struct GuestRunOptions {
    std::string qemu = "qemu-system-x86_64";
    std::string kernel_image; // guest_kernel(): the PVH vmlinux, or /boot/vmlinuz-<release>
    std::string initramfs;
    std::string tpmd;     // the ksweep-tpmd executable
    std::string registry; // the device registry it reads (qemu/devices.yaml)
    // The registry entry: the model ksweep-tpmd runs, what the guest binds and benchmarks.
    device::DeviceEntry device;
    // wired: the chip's interrupt line reaches the guest through ivshmem-doorbell (ksweep-tpmd is
    // its server) and the guest binds the chip with it (initramfs' bind module).
    device::InterruptMode interrupt = device::InterruptMode::none;
    std::string profile; // its device profile (qemu/profiles/*.yaml)
    std::uint32_t extends = 10;
    int memory_mb = 512;
    std::chrono::seconds timeout{300}; // the whole boot, from QEMU's start
    std::string run_dir;               // created if missing; logs, socket and TPM state go here
    bool trace = false;                // ksweep-tpmd --trace into run_dir/i2c-trace.log
    // ksweep-tpmd and QEMU run at this niceness, so other work on the host (a parallel build)
    // delays their wake-ups less; it needs CAP_SYS_NICE, without it they run at ksweep's own.
    int nice = -10;
    // Called with each boot phase the guest reports ("modules", "probe ...", "extend n=200"),
    // and with "extend i/N" progress; may be empty.
    std::function<void(const std::string&)> on_progress;
};

enum class GuestOutcome {
    passed,         // all extends succeeded and the PCR matches
    backend_failed, // ksweep-tpmd did not start (or QEMU could not)
    timed_out,      // the guest was killed
    guest_failed,   // the guest finished but something failed (probe, /dev/tpm0, an extend)
    pcr_mismatch,   // everything ran, the final PCR is wrong
    value_mismatch, // a device file's operations ran, a value read is not the file's
};

const char* to_string(GuestOutcome outcome);

// A device file's operations: every value read against the file's `expect`.
struct ValueCheck {
    bool passed = false;
    std::string expected;
    size_t matched = 0, checked = 0;
    std::string message; // one line: "20/20 reads returned 291, as devices/ak8974.yaml says"
};

// Every value of `report` against `expected`.
ValueCheck check_values(const GuestReport& report, const std::string& expected,
                        const std::string& what, const std::string& source);

struct GuestRunResult {
    GuestOutcome outcome = GuestOutcome::guest_failed;
    std::string message; // what happened and where the logs are, for the user
    GuestReport report;
    std::optional<PcrCheck> pcr;
    std::optional<ValueCheck> values; // a device file's operation instead of the PCR
    std::string run_dir;
    std::string console_log;              // the guest's serial console (and QEMU's own messages)
    std::string backend_log;              // ksweep-tpmd --log
    std::string trace_log;                // ksweep-tpmd --trace, when asked for
    std::string backend_output;           // ksweep-tpmd's stdout/stderr
    std::string stats_path;               // ksweep-tpmd --stats
    std::string stats;                    // its content after the back end stopped
    std::optional<DeviceCounters> device; // parsed from `stats`
    double wall_seconds = 0;              // QEMU start to exit
    int nice = 0;                         // the niceness QEMU and ksweep-tpmd actually got
};

// What qemu/init.sh reads from the kernel command line: the extends, the I2C device to bind, its
// address and the benchmark's TPM family, or a device file's operation and its target; and
// whether to bind it with its interrupt line.
std::string guest_kernel_args(const device::DeviceEntry& device, std::uint32_t extends,
                              device::InterruptMode interrupt = device::InterruptMode::none);

// The guest CPU on a fixed instruction clock, so the driver's code costs what it would on
// hardware (docs/validate-timing.md): for local boots and the LAVA jobs alike.
std::vector<std::string> guest_clock_args();

// The arguments that give the guest the emulated I2C TPM: shareable guest memory of `memory_mb`
// (which must equal -m) and the vhost-user-i2c device on the back end's `socket`. One place for
// both the local boot and the LAVA jobs' extra_options.
std::vector<std::string> vhost_user_i2c_args(int memory_mb, const std::string& socket);
// The device that carries the chip's interrupt line: ivshmem-doorbell with one MSI-X vector,
// served by ksweep-tpmd --irq-socket.
std::vector<std::string> ivshmem_doorbell_args(const std::string& socket);
// Where the doorbell's socket is, beside the I2C one.
std::string irq_socket_beside(const std::string& i2c_socket);

// The QEMU command line for one boot (exposed for tests and for the log).
std::vector<std::string> qemu_command(const GuestRunOptions& options, const std::string& socket);

GuestRunResult run_guest(const GuestRunOptions& options);

} // namespace ksweep::guest
