// An emulated TPM chip as ksweep-tpmd serves it: an I2C target whose counters end up in the
// stats file, with its interrupt output where it has one. The model classes (nuvoton_tpm.h,
// st33zp24_tpm.h, cr50_tpm.h) and the table that names them for the device registry
// (device_models.h).
#pragma once

#include "device/i2c_bus.h"
#include "device/interrupt_line.h"
#include "device/tpm_chip_stats.h"

namespace ksweep::device {

class TpmModel : public I2cDevice {
  public:
    virtual const TpmChipStats& stats() const = 0;
    // Connects the chip's interrupt output to `line`; false for a chip without one.
    virtual bool wire_interrupt(InterruptLine& /*line*/) { return false; }
};

} // namespace ksweep::device
