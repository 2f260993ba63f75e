#include "guest/guest_modules.h"

#include "core/file_io.h"
#include "core/process.h"
#include "core/strings.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

// "kernel/drivers/virtio/virtio-pci.ko.xz" -> "virtio_pci".
std::string module_name(std::string_view path) {
    std::string name(path.substr(path.rfind('/') + 1));
    name = name.substr(0, name.find(".ko"));
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

} // namespace

std::vector<std::string> default_guest_modules() {
    // REFERENCE §5: virtio PCI transport; the I2C core and the TPM core are built in (checked
    // at run time through modules.builtin all the same).
    return {"virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev",
            "virtio_pci"};
}

ImageModules resolve_image_modules(const std::string& modules_dir,
                                   const std::vector<std::string>& wanted) {
    std::ifstream dep_file(fs::path(modules_dir) / "modules.dep");
    if (!dep_file)
        throw std::runtime_error("cannot read " + modules_dir +
                                 "/modules.dep (is the kernel image installed?)");
    // name -> (relative path, its dependencies as modules.dep lists them)
    std::map<std::string, std::pair<std::string, std::vector<std::string>>> deps;
    for (std::string line; std::getline(dep_file, line);) {
        size_t colon = line.find(':');
        if (colon == std::string::npos)
            continue;
        std::string path = line.substr(0, colon);
        deps[module_name(path)] = {path, split_words(line.substr(colon + 1))};
    }
    std::set<std::string> builtin_names;
    std::ifstream builtin_file(fs::path(modules_dir) / "modules.builtin");
    for (std::string line; std::getline(builtin_file, line);)
        builtin_names.insert(module_name(line));

    ImageModules result;
    std::set<std::string> added;
    auto add = [&](const std::string& relative) {
        if (added.insert(module_name(relative)).second)
            result.load_order.push_back((fs::path(modules_dir) / relative).string());
    };
    for (const auto& raw : wanted) {
        std::string name = module_name(raw);
        auto it = deps.find(name);
        if (it == deps.end()) {
            if (!builtin_names.count(name))
                throw std::runtime_error("module " + name + " is neither in " + modules_dir +
                                         "/modules.dep nor built in");
            result.builtin.push_back(name);
            continue;
        }
        // modules.dep lists a module's dependencies so that loading them last-first works
        // (what modprobe does).
        const auto& [path, its_deps] = it->second;
        for (auto d = its_deps.rbegin(); d != its_deps.rend(); ++d)
            add(*d);
        add(path);
    }
    return result;
}

std::string uncompressed_module_name(const std::string& path) {
    std::string name = fs::path(path).filename().string();
    return name.substr(0, name.find(".ko")) + ".ko";
}

std::string read_module_uncompressed(const std::string& path) {
    const char* tool = path.ends_with(".ko.xz")    ? "xz"
                       : path.ends_with(".ko.zst") ? "zstd"
                       : path.ends_with(".ko.gz")  ? "gzip"
                                                   : nullptr;
    if (!tool) {
        auto bytes = read_file(path);
        if (!bytes)
            throw std::runtime_error("cannot read module " + path);
        return std::move(*bytes);
    }
    // Keep the tool's messages out of the module bytes: stderr goes to /dev/null.
    CommandResult r =
        run_command({"sh", "-c", std::string(tool) + " -dc -- \"$1\" 2>/dev/null", "sh", path}, "",
                    std::chrono::seconds(60));
    if (r.status != 0 || r.output.substr(0, 4) != "\x7f"
                                                  "ELF")
        throw std::runtime_error(std::string("cannot decompress ") + path + " with " + tool);
    return r.output;
}

} // namespace ksweep::guest
