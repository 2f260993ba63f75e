// ksweep devices: the devices L4 can boot (qemu/devices.yaml and the device files it names),
// as the README's table: generated, never written by hand.
#include "cli/args.h"
#include "cli/commands.h"
#include "core/data_dir.h"
#include "device/registry_table.h"
#include "guest/guest_benchmark.h"

#include <cstdio>

namespace ksweep::cli {

int devices_command(int argc, char** argv) {
    std::string registry_file;
    ArgParser parser("devices", "[--registry FILE]",
                     "Print the device registry as a Markdown table: every driver L4 boots against "
                     "an\n"
                     "emulated I2C device (the TPMs of qemu/devices.yaml and every device file of\n"
                     "devices/), how it is bound, the operation timed and the value checked, its\n"
                     "modules and default profile. The README's device list is this output.\n"
                     "Exit status 2 when the registry or a device file is malformed "
                     "(file:line:col).");
    parser.option("--registry", &registry_file, "FILE",
                  "the registry to read (default: the one ksweep ships, qemu/devices.yaml)");
    if (auto exit = parser.parse(argc, argv))
        return *exit;
    try {
        device::DeviceRegistry registry = device::load_device_registry(
            registry_file.empty() ? guest::registry_path() : registry_file);
        std::fputs(device::render_registry_markdown(registry, data_file("")).c_str(), stdout);
    } catch (const device::RegistryError& e) {
        std::fprintf(stderr, "ksweep devices: %s\n", e.what());
        return 2;
    }
    return 0;
}

} // namespace ksweep::cli
