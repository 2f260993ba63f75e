// Where ksweep's shipped data lives (rules/, tests/historical/): the source tree it was built
// from, compiled in, or $KSWEEP_DATA_DIR when set (an installed or relocated copy).
#pragma once

#include <string>

namespace ksweep {

// The data directory itself.
std::string data_dir();

// data_file("rules/msleep_small.yaml") -> "<data dir>/rules/msleep_small.yaml".
std::string data_file(const std::string& relative);

} // namespace ksweep
