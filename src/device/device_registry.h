// The device registry (qemu/devices.yaml): for every driver ksweep can boot against an emulated
// device, the model ksweep-tpmd runs and its I2C address, the modules the guest builds and loads
// in order, how the guest binds the device, the benchmark and what is checked after it, and the
// default device profile. ksweep-tpmd, the guest and L4 all read this one table, so adding a
// device is one model class (device_models.h) and one entry. Loading is strict: a malformed
// file is reported as "file:line:col: what was expected".
#pragma once

#include "device/device_spec.h"
#include "device/tpm_family.h"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::device {

// What the guest's extend program (qemu/extend/tpm_extend.c) runs and what the host checks
// after it: `command` into PCR 16 (resettable in both families), the final PCR against the hash
// chain in `pcr_bank`.
struct BenchmarkSpec {
    std::string command;  // "TPM2_PCR_Extend" or "TPM_Extend": what one sample times
    std::string pcr_bank; // "sha256" or "sha1"
};

// How a boot wires the chip's interrupt output: to the guest's driver as its IRQ (wired; an
// ivshmem doorbell carries it), or not at all, as on a board without the wire (none: the driver
// waits fixed delays instead).
enum class InterruptMode { none, wired };
const char* to_string(InterruptMode mode); // "none", "wired"
std::optional<InterruptMode> parse_interrupt_mode(const std::string& text);

struct DeviceEntry {
    std::string driver;      // the registry key: the driver that binds ("tpm_i2c_nuvoton")
    std::string description; // one line for people
    // ksweep-tpmd's model class ("nuvoton", "st33zp24_i2c"); kTableModel for a device file.
    std::string model;
    TpmFamily tpm = TpmFamily::tpm20;
    uint16_t i2c_address = 0;
    // Tree-relative directory the modules are built from, and their kbuild names in load order.
    std::string module_directory;
    std::vector<std::string> modules;
    std::string i2c_device_id; // what the guest writes to new_device ("tpm2_i2c_nuvoton")
    // bind.interrupt: how boards wire the chip's interrupt line, what L4 boots by default.
    InterruptMode interrupt = InterruptMode::none;
    BenchmarkSpec benchmark;
    std::string profile;     // absolute: resolved against the registry file's directory
    std::string source_path; // "qemu/devices.yaml:12" for messages
    // A device described as data (devices/*.yaml): its registers, rules and guest operation;
    // empty for the TPMs, whose model is a class and whose benchmark is tpm_extend.
    std::optional<DeviceSpec> spec;

    bool is_tpm() const { return !spec; }
};

// The model of every device file: one table-driven chip (table_device.h).
inline constexpr const char* kTableModel = "table";

struct RegistryError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class DeviceRegistry {
  public:
    explicit DeviceRegistry(std::vector<DeviceEntry> entries) : entries_(std::move(entries)) {}

    const std::vector<DeviceEntry>& entries() const { return entries_; }
    // By registry key; nullptr when there is none.
    const DeviceEntry* find(const std::string& driver) const;
    // The entry that loads kbuild module `module` of tree directory `directory`: a patch to any
    // module an entry builds is validated by booting that entry.
    const DeviceEntry* for_module(const std::string& module, const std::string& directory) const;

  private:
    std::vector<DeviceEntry> entries_;
};

// Throws RegistryError ("file:line:col: ...", a device file's errors included).
DeviceRegistry load_device_registry(const std::string& path);
// `path` names the text in messages; relative profile paths and `device_files` (the directory
// of devices/*.yaml) resolve against its directory.
DeviceRegistry parse_device_registry(const std::string& yaml_text, const std::string& path);

} // namespace ksweep::device
