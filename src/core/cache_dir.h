// Where ksweep keeps what it builds once and reuses: the unpacked kernel source and env file
// written by scripts/setup.sh, scratch repositories, module builds, initramfs images.
#pragma once

#include <string>

namespace ksweep {

// $KSWEEP_CACHE, or ~/.cache/ksweep when it is unset or empty: the same rule as
// scripts/setup.sh, so ksweep finds what setup wrote.
std::string cache_dir();

} // namespace ksweep
