// A device described as data (devices/*.yaml): an I2C chip as its register file or command
// bytes, the timed rules that make it a device rather than a memory (a conversion that sets a
// ready bit after a delay, a busy period after a write), and the guest's side of it (the
// tree's config symbols, the modules, how to bind, the operation to time and the value it must
// return). ksweep-tpmd serves any such file with one model (table_device.h); the guest, L4 and
// the registry read the rest. Loading is strict: "file:line:col: what was expected".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::device {

struct DeviceSpecError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// How a message's bytes address the chip.
enum class Framing {
    // The first byte of a write is the register pointer; the rest of the write and every read
    // after it go to consecutive byte addresses (srf08, ak8974: regmap and SMBus byte data).
    register_pointer,
    // The first byte of a write is a command from `commands` (no pointer of its own): it
    // starts the chip's work, and says where the data that follows it or the next read go
    // (hmc6352's 'A', max6900's 0xbf burst read).
    command,
};

struct RegisterSpec {
    std::string name;
    uint8_t address = 0; // first byte address
    unsigned width = 1;  // bytes, 1..8
    bool big_endian = true;
    uint64_t reset = 0;
    bool readable = true, writable = true;
    uint64_t clear_on_read = 0; // bits a read of this register clears (after it returned them)
    std::string source;         // "devices/x.yaml:12" for messages
};

struct CommandSpec {
    uint8_t code = 0;
    std::string read;  // register the next read starts at ("" = none)
    std::string write; // register the bytes after the command go to ("" = none allowed)
};

// What starts a rule.
struct RuleTrigger {
    enum class Kind { write, read, command } kind = Kind::write;
    std::string register_name;           // write, read ("*" for a write to any register)
    std::optional<uint64_t> value, bits; // write: the value written, or bits all set in it
    uint8_t command = 0;
};

struct RuleSpec {
    RuleTrigger when;
    // When the actions happen: at once, after a fixed time, or after a delay the profile
    // names (its `delays`, with their spread).
    std::string delay;                                         // a profile delay's name ("" = none)
    std::optional<uint64_t> after_ns;                          // a fixed time
    std::map<std::string, uint64_t> set_bits, clear_bits, set; // register -> bits/value
    std::map<std::string, std::vector<uint64_t>> reads; // the next reads return these, in turn
    // Busy from the trigger until the delay has passed: a read returns busy_byte (or the chip
    // NACKs every message when busy_nack), and writes are dropped.
    bool busy = false;
    bool busy_nack = false;
    uint8_t busy_byte = 0xff;
    std::string source;
};

// The operation the guest times, and what it must return (the check of the value, as PCR 16
// is for the TPMs).
struct GuestOperation {
    enum class Kind { read_attribute, rtc_set_time } kind = Kind::read_attribute;
    // read_attribute: a sysfs attribute below the bound client's directory, glob allowed
    // ("iio:device*/in_magn_x_raw"); rtc_set_time: the client's rtc directory ("rtc/rtc*"),
    // whose /dev node takes the ioctl.
    std::string target;
    std::string argument; // rtc_set_time: the time set, "2026-12-02T06:53:00"
    std::string expect;   // the value every operation must read (rtc: RTC_RD_TIME after them)

    std::string label() const; // "read in_magn_x_raw", "RTC_SET_TIME": one operation, for tables
};

struct DeviceSpec {
    std::string driver;      // the registry key: the driver's module ("ak8974", "rtc-max6900")
    std::string description; // one line for people
    std::string subsystem;   // "iio", "misc", "rtc": for the README's table
    uint16_t address = 0;
    std::string new_device; // what the guest writes to new_device with the address
    Framing framing = Framing::register_pointer;
    std::vector<RegisterSpec> registers;
    std::vector<CommandSpec> commands;
    std::vector<RuleSpec> rules;

    // The guest's side.
    std::vector<std::string> config; // "CONFIG_AK8974=m": merged into the guest's fragment
    std::string module_directory;
    std::vector<std::string> modules; // kbuild names, load order
    GuestOperation operation;
    std::string profile; // absolute
    std::string path;    // the file

    const RegisterSpec* find_register(const std::string& name) const;
    // The delays the rules name, which a profile must define.
    std::vector<std::string> delay_names() const;
};

// Throws DeviceSpecError ("file:line:col: ..."). Relative profile paths resolve against the
// file's directory.
DeviceSpec load_device_spec(const std::string& path);
DeviceSpec parse_device_spec(const std::string& yaml_text, const std::string& path);

// The files of a directory (*.yaml, in name order), each loaded; throws on the first bad one.
std::vector<DeviceSpec> load_device_specs(const std::string& directory);

} // namespace ksweep::device
