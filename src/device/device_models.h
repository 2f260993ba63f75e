// The model classes ksweep-tpmd can run, by the name the device registry gives them
// (qemu/devices.yaml `model:`). A new device is one TpmModel class and one row here, plus its
// registry entry.
#pragma once

#include "device/device_profile.h"
#include "device/device_registry.h"
#include "device/tpm_engine.h"
#include "device/tpm_model.h"

#include <memory>
#include <span>
#include <string>

namespace ksweep::device {

struct ModelClass {
    const char* name;
    bool tpm12, tpm20; // the TPM families the chip exists in
    // The profile requirements the model enforces; a profile stating another one is refused.
    std::span<const Requirement> checks;
    std::unique_ptr<TpmModel> (*create)(Clock&, TpmEngine&, const DeviceProfile&, LogFn);
    // The chip has an interrupt output (TpmModel::wire_interrupt) for the boot to wire.
    bool interrupt_line = false;
};

std::span<const ModelClass> model_classes();
const ModelClass* find_model_class(const std::string& name);

// Why `entry` cannot run with `profile` ("" when it can): no such model, a TPM family the chip
// does not have, an interrupt line the chip does not drive, or a requirement the model does
// not check (it would pass silently); for a device file, a delay its rules name that the
// profile lacks (table_device.h).
std::string model_mismatch(const DeviceEntry& entry, const DeviceProfile& profile);

} // namespace ksweep::device
