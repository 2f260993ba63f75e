#include "device/tpm_engine.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <libtpms/tpm_error.h>
#include <libtpms/tpm_library.h>

namespace ksweep::device {

namespace {

std::atomic<bool> engine_running{false};

// libtpms' NV callbacks have no user pointer: the state directory and family of the one
// running engine.
std::string state_directory;
const char* state_prefix = "tpm2-";

std::string state_file(uint32_t tpm_number, const char* name) {
    return state_directory + "/" + state_prefix + std::to_string(tpm_number) + "." + name;
}

// Without callbacks libtpms' TPM 2.0 keeps NV in ./NVChip, shared by every run started in the
// same directory; these keep it in the run's own state directory instead.
TPM_RESULT nvram_init() {
    return TPM_SUCCESS;
}

TPM_RESULT nvram_load(unsigned char** data, uint32_t* length, uint32_t tpm_number,
                      const char* name) {
    std::ifstream in(state_file(tpm_number, name), std::ios::binary);
    if (!in)
        return TPM_RETRY; // "no such state": libtpms manufactures a fresh TPM
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    *data = static_cast<unsigned char*>(std::malloc(bytes.empty() ? 1 : bytes.size()));
    if (!*data)
        return TPM_FAIL;
    std::memcpy(*data, bytes.data(), bytes.size());
    *length = static_cast<uint32_t>(bytes.size());
    return TPM_SUCCESS;
}

TPM_RESULT nvram_store(const unsigned char* data, uint32_t length, uint32_t tpm_number,
                       const char* name) {
    std::ofstream out(state_file(tpm_number, name), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), length);
    return out ? TPM_SUCCESS : TPM_FAIL;
}

TPM_RESULT nvram_delete(uint32_t tpm_number, const char* name, TPM_BOOL must_exist) {
    bool removed = std::remove(state_file(tpm_number, name).c_str()) == 0;
    return removed || !must_exist ? TPM_SUCCESS : TPM_FAIL;
}

constexpr uint32_t kTpm2RcFailure = 0x101;
constexpr uint32_t kTpm12Fail = 0x09; // TPM_FAIL

// TPM_Startup(TPM_ST_CLEAR): tag TPM_TAG_RQU_COMMAND, size 12, TPM_ORD_Startup.
constexpr uint8_t kTpm12StartupClear[] = {0x00, 0xc1, 0, 0, 0, 12, 0, 0, 0, 0x99, 0x00, 0x01};

} // namespace

uint32_t tpm_header_size_field(std::span<const uint8_t> m) {
    if (m.size() < 6)
        return 0;
    return uint32_t{m[2]} << 24 | uint32_t{m[3]} << 16 | uint32_t{m[4]} << 8 | m[5];
}

uint32_t tpm_header_code(std::span<const uint8_t> m) {
    if (m.size() < 10)
        return 0;
    return uint32_t{m[6]} << 24 | uint32_t{m[7]} << 16 | uint32_t{m[8]} << 8 | m[9];
}

std::vector<uint8_t> tpm_error_response(TpmFamily family, uint32_t rc) {
    // The tag, size 10, the response code.
    uint16_t tag = family == TpmFamily::tpm20 ? 0x8001 : 0x00c4;
    return {uint8_t(tag >> 8), uint8_t(tag),     0,          0, 0, 10, uint8_t(rc >> 24),
            uint8_t(rc >> 16), uint8_t(rc >> 8), uint8_t(rc)};
}

std::unique_ptr<LibtpmsEngine> LibtpmsEngine::start(const std::string& state_dir, TpmFamily family,
                                                    std::string& error) {
    if (engine_running.exchange(true)) {
        error = "libtpms is already running in this process";
        return nullptr;
    }
    state_directory = state_dir;
    state_prefix = family == TpmFamily::tpm20 ? "tpm2-" : "tpm12-";
    libtpms_callbacks callbacks{};
    callbacks.sizeOfStruct = sizeof callbacks;
    callbacks.tpm_nvram_init = nvram_init;
    callbacks.tpm_nvram_loaddata = nvram_load;
    callbacks.tpm_nvram_storedata = nvram_store;
    callbacks.tpm_nvram_deletename = nvram_delete;
    if (TPMLIB_RegisterCallbacks(&callbacks) != TPM_SUCCESS) {
        error = "libtpms: cannot register NV callbacks";
        engine_running = false;
        return nullptr;
    }
    auto version = family == TpmFamily::tpm20 ? TPMLIB_TPM_VERSION_2 : TPMLIB_TPM_VERSION_1_2;
    if (TPMLIB_ChooseTPMVersion(version) != TPM_SUCCESS) {
        error = std::string("libtpms: TPM ") + to_string(family) + " not available";
        engine_running = false;
        return nullptr;
    }
    if (TPM_RESULT rc = TPMLIB_MainInit(); rc != TPM_SUCCESS) {
        error = "libtpms: TPMLIB_MainInit failed with " + std::to_string(rc) + " (state dir " +
                state_dir + ")";
        engine_running = false;
        return nullptr;
    }
    std::unique_ptr<LibtpmsEngine> engine(new LibtpmsEngine(family));
    if (family == TpmFamily::tpm12) {
        auto rsp = engine->execute(kTpm12StartupClear);
        if (uint32_t rc = tpm_header_code(rsp); rc != 0) {
            error = "libtpms: TPM_Startup(ST_CLEAR) failed with " + std::to_string(rc);
            return nullptr; // the engine's destructor terminates libtpms
        }
    }
    return engine;
}

LibtpmsEngine::~LibtpmsEngine() {
    TPMLIB_Terminate();
    std::free(buffer_);
    engine_running = false;
}

std::vector<uint8_t> LibtpmsEngine::execute(std::span<const uint8_t> command) {
    uint32_t response_size = 0;
    // TPMLIB_Process does not modify the command; its API is just not const-correct.
    auto* cmd = const_cast<unsigned char*>(command.data());
    if (TPMLIB_Process(&buffer_, &response_size, &buffer_size_, cmd,
                       static_cast<uint32_t>(command.size())) != TPM_SUCCESS ||
        response_size < 10)
        return tpm_error_response(family_,
                                  family_ == TpmFamily::tpm20 ? kTpm2RcFailure : kTpm12Fail);
    return std::vector<uint8_t>(buffer_, buffer_ + response_size);
}

} // namespace ksweep::device
