// The TPM behind the register interface: takes a complete command, returns its response.
#pragma once

#include "device/tpm_family.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ksweep::device {

class TpmEngine {
  public:
    virtual ~TpmEngine() = default;
    virtual std::vector<uint8_t> execute(std::span<const uint8_t> command) = 0;
};

// A TPM 2.0 or 1.2 run in process by libtpms, with its NV state in `state_dir` (use a fresh
// directory per run: an empty one makes a freshly manufactured TPM). libtpms is one TPM per
// process, so at most one engine may exist at a time.
class LibtpmsEngine final : public TpmEngine {
  public:
    // Returns nullptr with `error` set if libtpms cannot start. A TPM 1.2 is also started with
    // TPM_Startup(ST_CLEAR), as the platform firmware does before the OS sees the chip; a TPM 2.0
    // is left for the kernel to start (tpm2_auto_startup sends TPM2_Startup).
    static std::unique_ptr<LibtpmsEngine> start(const std::string& state_dir, TpmFamily family,
                                                std::string& error);
    ~LibtpmsEngine() override;
    LibtpmsEngine(const LibtpmsEngine&) = delete;
    LibtpmsEngine& operator=(const LibtpmsEngine&) = delete;

    std::vector<uint8_t> execute(std::span<const uint8_t> command) override;

  private:
    explicit LibtpmsEngine(TpmFamily family) : family_(family) {}
    TpmFamily family_;
    unsigned char* buffer_ = nullptr; // libtpms' response buffer, reused between commands
    uint32_t buffer_size_ = 0;
};

// Big-endian fields of TPM command and response headers.
uint32_t tpm_header_size_field(std::span<const uint8_t> message); // bytes 2..5
uint32_t tpm_header_code(std::span<const uint8_t> message);       // bytes 6..9

// A response header with only an error code (for commands the engine cannot take):
// TPM_ST_NO_SESSIONS for TPM 2.0, TPM_TAG_RSP_COMMAND for TPM 1.2.
std::vector<uint8_t> tpm_error_response(TpmFamily family, uint32_t rc);

} // namespace ksweep::device
