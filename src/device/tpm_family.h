// The TPM family behind a model: which libtpms engine ksweep-tpmd starts and which command set
// the guest's benchmark speaks.
#pragma once

namespace ksweep::device {

enum class TpmFamily { tpm12, tpm20 };

inline const char* to_string(TpmFamily family) {
    return family == TpmFamily::tpm12 ? "1.2" : "2.0";
}

} // namespace ksweep::device
