// The guest kernel's config fragment: qemu/guest.config (the guest itself, the TPM drivers) and
// the config symbols of every device file in the registry (devices/*.yaml `guest.config`),
// merged into one fragment. One fragment for all devices: one guest kernel per tree and HZ
// serves every device, and adding a device rebuilds each guest kernel once, not once per device.
#pragma once

#include "device/device_registry.h"

#include <string>

namespace ksweep::guest {

// The device files' symbols as fragment lines, each once, in registry order under a comment
// naming its files. Throws GuestBuildError when two files ask one symbol for different values
// or a symbol clashes with `base` (the text of guest.config).
std::string device_config_fragment(const device::DeviceRegistry& registry, const std::string& base);

// `base_path`'s text with device_config_fragment() appended, written once by content into
// <cache_dir>/guest-fragments/ (merge_config.sh reads a file); returns its path.
std::string write_guest_fragment(const std::string& base_path,
                                 const device::DeviceRegistry& registry,
                                 const std::string& cache_dir);

} // namespace ksweep::guest
