#include "device/device_registry.h"

#include "core/yaml_checks.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

namespace ksweep::device {

namespace {

using Yaml = YamlChecks<RegistryError>;

// The benchmarks qemu/extend/tpm_extend.c implements: one per TPM family.
constexpr struct {
    const char* command;
    const char* pcr_bank;
    TpmFamily family;
} kBenchmarks[] = {
    {"TPM2_PCR_Extend", "sha256", TpmFamily::tpm20},
    {"TPM_Extend", "sha1", TpmFamily::tpm12},
};

std::string scalar(const std::string& path, const YAML::Node& map, const char* key,
                   const char* what) {
    YAML::Node node = map[key];
    if (!node)
        Yaml::fail(path, map.Mark(), std::string(what) + " needs '" + key + "'");
    if (!node.IsScalar() || node.Scalar().empty())
        Yaml::fail(path, node.Mark(), std::string("'") + key + "' must be a non-empty string");
    return node.Scalar();
}

YAML::Node section(const std::string& path, const YAML::Node& map, const char* key,
                   const char* what, std::initializer_list<const char*> keys) {
    YAML::Node node = map[key];
    if (!node)
        Yaml::fail(path, map.Mark(), std::string(what) + " needs '" + key + "'");
    Yaml::require_map(path, node, key);
    Yaml::reject_unknown_keys(path, node, keys);
    return node;
}

// Kbuild names and tree-relative paths: nothing a shell or a path join could misread.
void require_name(const std::string& path, const YAML::Node& node, const std::string& value,
                  const std::regex& pattern, const char* what) {
    if (!std::regex_match(value, pattern))
        Yaml::fail(path, node.Mark(), "'" + value + "' is not " + what);
}

TpmFamily read_family(const std::string& path, const YAML::Node& entry) {
    std::string text = scalar(path, entry, "tpm", "a device");
    if (text == "2.0")
        return TpmFamily::tpm20;
    if (text == "1.2")
        return TpmFamily::tpm12;
    Yaml::fail(path, entry["tpm"].Mark(), "'tpm' must be \"1.2\" or \"2.0\"");
}

uint16_t read_address(const std::string& path, const YAML::Node& entry) {
    std::string text = scalar(path, entry, "i2c_address", "a device");
    try {
        size_t used = 0;
        unsigned long value = std::stoul(text, &used, 0);
        if (used == text.size() && value >= 0x08 && value <= 0x77)
            return static_cast<uint16_t>(value);
    } catch (const std::exception&) {
    }
    Yaml::fail(path, entry["i2c_address"].Mark(),
               "'i2c_address' must be a 7-bit address outside the reserved ranges (0x08..0x77)");
}

BenchmarkSpec read_benchmark(const std::string& path, const YAML::Node& entry, TpmFamily tpm) {
    YAML::Node node = section(path, entry, "benchmark", "a device", {"command", "pcr_bank"});
    BenchmarkSpec spec;
    spec.command = scalar(path, node, "command", "'benchmark'");
    spec.pcr_bank = scalar(path, node, "pcr_bank", "'benchmark'");
    for (const auto& known : kBenchmarks) {
        if (spec.command != known.command)
            continue;
        if (known.family != tpm)
            Yaml::fail(path, node["command"].Mark(),
                       spec.command + " is a TPM " + to_string(known.family) +
                           " command; this device is TPM " + to_string(tpm));
        if (spec.pcr_bank != known.pcr_bank)
            Yaml::fail(path, node["pcr_bank"].Mark(),
                       "the " + spec.command + " benchmark checks the " + known.pcr_bank +
                           " bank, not '" + spec.pcr_bank + "'");
        return spec;
    }
    Yaml::fail(path, node["command"].Mark(),
               "unknown benchmark '" + spec.command +
                   "' (tpm_extend runs TPM2_PCR_Extend or "
                   "TPM_Extend)");
}

DeviceEntry read_entry(const std::string& path, const fs::path& base, const YAML::Node& key,
                       const YAML::Node& entry) {
    static const std::regex kName("[A-Za-z0-9_-]+");
    static const std::regex kDirectory("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*");
    DeviceEntry d;
    d.driver = key.as<std::string>();
    require_name(path, key, d.driver, kName, "a driver name");
    d.source_path = path + ":" + std::to_string(key.Mark().line + 1);
    Yaml::require_map(path, entry, ("device '" + d.driver + "'").c_str());
    Yaml::reject_unknown_keys(
        path, entry,
        {"description", "model", "tpm", "i2c_address", "modules", "bind", "benchmark", "profile"});
    d.description = scalar(path, entry, "description", "a device");
    d.model = scalar(path, entry, "model", "a device");
    d.tpm = read_family(path, entry);
    d.i2c_address = read_address(path, entry);

    YAML::Node modules = section(path, entry, "modules", "a device", {"directory", "load"});
    d.module_directory = scalar(path, modules, "directory", "'modules'");
    if (!std::regex_match(d.module_directory, kDirectory) ||
        d.module_directory.find("..") != std::string::npos)
        Yaml::fail(path, modules["directory"].Mark(),
                   "'directory' must be a tree-relative path without '..'");
    YAML::Node load = modules["load"];
    if (!load || !load.IsSequence() || load.size() == 0)
        Yaml::fail(path, load ? load.Mark() : modules.Mark(),
                   "'load' must list the modules in load order");
    std::set<std::string> seen;
    for (const auto& m : load) {
        std::string name = m.IsScalar() ? m.Scalar() : "";
        require_name(path, m, name, kName, "a module name");
        if (!seen.insert(name).second)
            Yaml::fail(path, m.Mark(), "module '" + name + "' is listed twice");
        d.modules.push_back(name);
    }

    YAML::Node bind = section(path, entry, "bind", "a device", {"i2c_new_device", "interrupt"});
    d.i2c_device_id = scalar(path, bind, "i2c_new_device", "'bind'");
    require_name(path, bind["i2c_new_device"], d.i2c_device_id, kName, "an I2C device id");
    if (bind["interrupt"]) {
        auto mode = parse_interrupt_mode(scalar(path, bind, "interrupt", "'bind'"));
        if (!mode)
            Yaml::fail(path, bind["interrupt"].Mark(), "'interrupt' must be wired or none");
        d.interrupt = *mode;
    }

    d.benchmark = read_benchmark(path, entry, d.tpm);
    d.profile = (base / scalar(path, entry, "profile", "a device")).string();
    return d;
}

// A device file as a registry entry: what the guest, L4 and the back end read of every entry.
DeviceEntry entry_of(DeviceSpec spec) {
    DeviceEntry d;
    d.driver = spec.driver;
    d.description = spec.description;
    d.model = kTableModel;
    d.i2c_address = spec.address;
    d.module_directory = spec.module_directory;
    d.modules = spec.modules;
    d.i2c_device_id = spec.new_device;
    d.benchmark.command = spec.operation.label();
    d.profile = spec.profile;
    d.source_path = spec.path + ":1";
    d.spec = std::move(spec);
    return d;
}

} // namespace

const char* to_string(InterruptMode mode) {
    return mode == InterruptMode::wired ? "wired" : "none";
}

std::optional<InterruptMode> parse_interrupt_mode(const std::string& text) {
    for (InterruptMode mode : {InterruptMode::none, InterruptMode::wired})
        if (text == to_string(mode))
            return mode;
    return std::nullopt;
}

const DeviceEntry* DeviceRegistry::find(const std::string& driver) const {
    for (const auto& e : entries_)
        if (e.driver == driver)
            return &e;
    return nullptr;
}

const DeviceEntry* DeviceRegistry::for_module(const std::string& module,
                                              const std::string& directory) const {
    for (const auto& e : entries_)
        if (e.module_directory == directory &&
            std::find(e.modules.begin(), e.modules.end(), module) != e.modules.end())
            return &e;
    return nullptr;
}

DeviceRegistry parse_device_registry(const std::string& text, const std::string& path) {
    YAML::Node root = Yaml::load(text, path);
    Yaml::require_map(path, root, "the device registry");
    Yaml::reject_unknown_keys(path, root, {"devices", "device_files"});
    YAML::Node devices = root["devices"];
    if (!devices)
        Yaml::fail(path, root.Mark(), "the device registry needs 'devices'");
    Yaml::require_map(path, devices, "devices");
    fs::path base = fs::path(path).parent_path();
    std::vector<std::pair<DeviceEntry, YAML::Mark>> read;
    for (const auto& kv : devices)
        read.emplace_back(read_entry(path, base, kv.first, kv.second), kv.first.Mark());
    if (YAML::Node files = root["device_files"]) {
        std::string dir = files.IsScalar() ? files.Scalar() : "";
        if (dir.empty() || !fs::is_directory(base / dir))
            Yaml::fail(path, files.Mark(), "'device_files' must name a directory of device files");
        try {
            for (DeviceSpec& spec : load_device_specs((base / dir).lexically_normal().string()))
                read.emplace_back(entry_of(std::move(spec)), files.Mark());
        } catch (const DeviceSpecError& e) {
            throw RegistryError(e.what());
        }
    }
    std::vector<DeviceEntry> entries;
    for (auto& [entry, mark] : read) {
        // One module belongs to one entry, or L4 could not tell which device a patch boots.
        for (const auto& other : entries)
            for (const auto& m : entry.modules)
                if (other.module_directory == entry.module_directory &&
                    std::find(other.modules.begin(), other.modules.end(), m) != other.modules.end())
                    Yaml::fail(path, mark,
                               entry.source_path + ": module '" + m + "' already belongs to '" +
                                   other.driver + "'");
        const std::string& driver = entry.driver; // a lambda may not capture a binding (C++20)
        if (std::any_of(entries.begin(), entries.end(),
                        [&](const DeviceEntry& e) { return e.driver == driver; }))
            Yaml::fail(path, mark,
                       entry.source_path + ": device '" + entry.driver + "' is listed twice");
        entries.push_back(std::move(entry));
    }
    if (entries.empty())
        Yaml::fail(path, devices.Mark(), "'devices' lists no device");
    return DeviceRegistry(std::move(entries));
}

DeviceRegistry load_device_registry(const std::string& path) {
    return parse_device_registry(Yaml::read_text(path, "the device registry"), path);
}

} // namespace ksweep::device
