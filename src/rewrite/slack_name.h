// The name of a file's slack constant: the rule's template ("{PREFIX}_DELAY_RANGE") filled
// with the file's own macro prefix (TPM_I2C beside TPM_I2C_BUS_DELAY) or its file name, and
// never a name the file already uses for something else.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace ksweep {

// The longest run of leading '_'-separated words that three quarters of `names` (and at least
// two) share: {TPM_I2C_BUS_DELAY, TPM_I2C_RETRY_COUNT} -> "TPM_I2C".
// Prefixes ending in a register-map word (FOO_REG) do not count. Empty when no two names
// share a prefix.
std::string shared_macro_prefix(const std::vector<std::string>& names);

// "drivers/char/tpm/tpm_i2c_nuvoton.c" -> "TPM_I2C_NUVOTON".
std::string file_name_prefix(const std::string& path);

// The template with {PREFIX} replaced.
std::string expand_slack_name(const std::string& name_template, const std::string& prefix);

// `name` if `taken` says it is free, else the first free of NAME_US, NAME_2, NAME_3, ...
std::string unclashing_name(const std::string& name,
                            const std::function<bool(const std::string&)>& taken);

} // namespace ksweep
