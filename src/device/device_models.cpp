#include "device/device_models.h"

#include "device/cr50_tpm.h"
#include "device/nuvoton_tpm.h"
#include "device/st33zp24_tpm.h"
#include "device/table_device.h"

#include <algorithm>

namespace ksweep::device {

namespace {

template <typename Model>
std::unique_ptr<TpmModel> make(Clock& clock, TpmEngine& engine, const DeviceProfile& profile,
                               LogFn log) {
    return std::make_unique<Model>(clock, engine, profile, std::move(log));
}

constexpr Requirement kNuvotonChecks[] = {Requirement::min_status_gap,
                                          Requirement::min_poll_interval};

constexpr Requirement kSt33zp24Checks[] = {Requirement::min_ready_poll_interval};

constexpr Requirement kCr50Checks[] = {Requirement::min_ready_write_gap};

constexpr ModelClass kModels[] = {
    {"nuvoton", true, true, kNuvotonChecks, &make<NuvotonTpm>},
    {"st33zp24_i2c", true, false, kSt33zp24Checks, &make<St33zp24Tpm>}, // TPM 1.2 only
    {"cr50", false, true, kCr50Checks, &make<Cr50Tpm>, true},           // TPM 2.0, INT_AP_L
};

} // namespace

std::span<const ModelClass> model_classes() {
    return kModels;
}

const ModelClass* find_model_class(const std::string& name) {
    for (const auto& m : kModels)
        if (name == m.name)
            return &m;
    return nullptr;
}

std::string model_mismatch(const DeviceEntry& entry, const DeviceProfile& profile) {
    if (entry.spec) // a device file: the table model, no TPM family
        return table_profile_mismatch(*entry.spec, profile);
    const ModelClass* model = find_model_class(entry.model);
    if (!model) {
        std::string known;
        for (const auto& m : kModels)
            known += std::string(known.empty() ? "" : ", ") + m.name;
        return entry.source_path + ": unknown model '" + entry.model + "' (ksweep-tpmd has " +
               known + ")";
    }
    bool family = entry.tpm == TpmFamily::tpm12 ? model->tpm12 : model->tpm20;
    if (!family)
        return entry.source_path + ": model '" + entry.model + "' has no TPM " +
               to_string(entry.tpm) + " variant";
    if (entry.interrupt != InterruptMode::none && !model->interrupt_line)
        return entry.source_path + ": model '" + entry.model +
               "' drives no interrupt line for bind.interrupt to carry";
    for (Requirement r : stated_requirements(profile.requirements))
        if (std::find(model->checks.begin(), model->checks.end(), r) == model->checks.end())
            return profile.source_path + ": states " + requirement_info(r).profile_key +
                   ", which model '" + entry.model + "' does not check";
    return "";
}

} // namespace ksweep::device
