// A TPM that answers every command with a fixed response, recording what it was sent: the
// engine behind the models' register-protocol tests.
#pragma once

#include "device/tpm_engine.h"

#include <vector>

namespace ksweep::device::testing {

class ScriptedTpm final : public TpmEngine {
  public:
    std::vector<uint8_t> execute(std::span<const uint8_t> command) override {
        commands.emplace_back(command.begin(), command.end());
        return response;
    }
    std::vector<std::vector<uint8_t>> commands;
    std::vector<uint8_t> response = {0x80, 0x01, 0, 0, 0, 10, 0, 0, 0, 0};
};

} // namespace ksweep::device::testing
