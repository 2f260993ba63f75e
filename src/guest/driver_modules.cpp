#include "guest/driver_modules.h"

#include "kbuild/modules.h"

#include <filesystem>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep::guest {

ModuleBuildRequest driver_build_request(const device::DeviceEntry& entry, const std::string& root,
                                        const std::string& stand_in) {
    ModuleBuildRequest request;
    request.subdir = entry.module_directory;
    fs::path dir = fs::path(root) / entry.module_directory;
    bool stand_in_used = stand_in.empty();
    for (const auto& name : entry.modules) {
        auto module =
            kbuild::find_module_named(root, entry.module_directory, name, kbuild::read_tree_file);
        if (!module)
            throw std::runtime_error("no kbuild rule for module " + name + " in " +
                                     (dir / "Makefile").string() + " (the device registry's " +
                                     entry.driver + " entry, " + entry.source_path + ")");
        for (const auto& object : kbuild::module_objects(*module)) {
            // The out-of-tree build copies sources flat into the module's directory.
            if (object.find('/') != std::string::npos)
                throw std::runtime_error("module " + name + " links " + object +
                                         " from a subdirectory, which the guest's module build "
                                         "does not copy yet");
            fs::path source = dir / fs::path(object).replace_extension(".c");
            if (!stand_in.empty() && source.filename() == fs::path(stand_in).filename()) {
                source = stand_in;
                stand_in_used = true;
            }
            request.sources.push_back(source.string());
        }
        request.targets.push_back({module->name, module->kbuild_lines});
    }
    if (!stand_in_used)
        throw std::runtime_error(stand_in + " is not a source of " + entry.driver +
                                 "'s modules in " + dir.string());
    // A stand-in's "quoted" headers are the tree's.
    request.include_dirs.push_back(dir.string());
    return request;
}

} // namespace ksweep::guest
