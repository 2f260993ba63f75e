#include "device/registry_table.h"

#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep::device {

namespace {

std::string relative(const std::string& path, const std::string& root) {
    fs::path rel =
        fs::path(path).lexically_normal().lexically_relative(fs::path(root).lexically_normal());
    return rel.empty() ? path : rel.string();
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : ", ") + i;
    return out;
}

std::string hex(uint16_t address) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", address);
    return text;
}

} // namespace

std::string render_registry_markdown(const DeviceRegistry& registry, const std::string& root) {
    std::string out = "| driver | subsystem | emulated chip | bound as | operation timed, value "
                      "checked | modules (load order) | default profile | described in |\n"
                      "|---|---|---|---|---|---|---|---|\n";
    for (const auto& e : registry.entries()) {
        std::string operation =
            e.spec ? e.spec->operation.label() + ", expects " + e.spec->operation.expect
                   : e.benchmark.command + ", PCR 16 in " + e.benchmark.pcr_bank;
        std::string source =
            e.spec ? relative(e.spec->path, root)
                   : relative(e.source_path.substr(0, e.source_path.rfind(':')), root);
        out += "| `" + e.driver + "` | " + (e.spec ? e.spec->subsystem : "tpm") + " | " +
               e.description + " | `" + e.i2c_device_id + "` at " + hex(e.i2c_address) + " | " +
               operation + " | " + joined(e.modules) + " (" + e.module_directory + ") | `" +
               fs::path(e.profile).stem().string() + "` | " + source + " |\n";
    }
    return out;
}

} // namespace ksweep::device
