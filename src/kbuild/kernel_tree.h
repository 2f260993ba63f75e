// Facts about a kernel tree and the build directory that goes with it: version, CONFIG_HZ,
// and which prepared headers/build directory matches it.
#pragma once

#include "core/sleep_model.h"

#include <optional>
#include <string>

namespace ksweep::kbuild {

// VERSION/PATCHLEVEL/SUBLEVEL from the tree's top Makefile; nullopt if it is not a kernel tree.
std::optional<KernelVersion> read_kernel_version(const std::string& tree);
// The same from a top Makefile's text (a blob in a repository, say).
std::optional<KernelVersion> kernel_version_in(const std::string& makefile);

// CONFIG_HZ from <build_dir>/.config (or include/config/auto.conf); nullopt when absent.
std::optional<int> read_config_hz(const std::string& build_dir);

// A prepared build directory for this tree: <tree>/include/generated exists (built in place),
// else Debian's /usr/src/linux-headers-<ver>-<flavour> whose version matches the tree. Empty
// when none is found.
std::string find_build_dir(const std::string& tree, const KernelVersion& version);

// "6.1.192" style.
std::string to_string(const KernelVersion& v);

} // namespace ksweep::kbuild
