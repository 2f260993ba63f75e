// The modules a device registry entry names (qemu/devices.yaml `modules:`), as one module build:
// the .c files each module links and the Kbuild lines that make it, read from the Makefile of
// the entry's directory in the tree under test. The modules are built side by side, in a copy of
// the tree's layout, so "../tpm.h" resolves as it does in the tree.
#pragma once

#include "device/device_registry.h"
#include "guest/module_build.h"

#include <string>

namespace ksweep::guest {

// `root` is the tree (or a snapshot with the tree's layout) holding the entry's directory.
// `stand_in`, when not empty, is a file used instead of the tree's file of the same name in that
// directory (`ksweep guest --driver-src`). Throws std::runtime_error naming what is missing: the
// directory's Makefile, a module it does not define, a stand-in no module links.
ModuleBuildRequest driver_build_request(const device::DeviceEntry& entry, const std::string& root,
                                        const std::string& stand_in);

} // namespace ksweep::guest
