// The guest kernel's own modules a driver under test needs: what modpost wrote into the
// driver's .modinfo as `depends=` (regmap-i2c for a regmap driver, when the guest's config
// builds it as a module), found in the guest build and loaded first. Nothing is named by hand:
// a device file lists only its driver's modules.
#pragma once

#include <string>
#include <vector>

namespace ksweep::guest {

// The `depends=` list of a .ko's .modinfo section (module names as modpost writes them); empty
// when it has none. Throws std::runtime_error for a file that is not a 64-bit ELF module.
std::vector<std::string> module_depends(const std::string& ko_path);

// The .ko files of `build_dir` (the guest kernel's O= build) that `modules` need, directly or
// through each other, in load order (a dependency before what needs it), without `modules`
// themselves. Names match with '-' and '_' alike, as the kernel's. Throws std::runtime_error
// naming a dependency the build has no .ko for.
std::vector<std::string> guest_module_dependencies(const std::vector<std::string>& modules,
                                                   const std::string& build_dir);

} // namespace ksweep::guest
