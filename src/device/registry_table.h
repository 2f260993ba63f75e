// The device registry as the README shows it: one Markdown row per device, generated from
// qemu/devices.yaml and the device files (`ksweep devices`), so the README's list cannot drift
// from what L4 really boots (a test compares the two).
#pragma once

#include "device/device_registry.h"

#include <string>

namespace ksweep::device {

// The table, with paths shown relative to `root` (the source tree).
std::string render_registry_markdown(const DeviceRegistry& registry, const std::string& root);

} // namespace ksweep::device
