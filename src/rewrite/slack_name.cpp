#include "rewrite/slack_name.h"

#include <cctype>
#include <map>
#include <set>

namespace ksweep {

namespace {

// Words that group macros rather than name the device: FOO_REG_CTRL and FOO_REG_STATUS share
// FOO_REG, but the device's prefix is FOO; DRIVER_NAME and DRIVER_DESC name no device at all.
bool ends_in_category_word(const std::string& prefix) {
    static const std::set<std::string> words = {"REG",   "REGS",   "ADDR",  "CMD",
                                                "BIT",   "MASK",   "SHIFT", "FLAG",
                                                "FLAGS", "DRIVER", "DRV",   "MODULE"};
    const size_t at = prefix.find_last_of('_');
    return words.count(at == std::string::npos ? prefix : prefix.substr(at + 1)) > 0;
}

} // namespace

std::string shared_macro_prefix(const std::vector<std::string>& names) {
    std::map<std::string, int> count;
    for (const std::string& name : std::set<std::string>(names.begin(), names.end())) {
        // Every proper prefix that ends at a '_' boundary: A, A_B for A_B_C.
        for (size_t pos = name.find('_', 1); pos != std::string::npos && pos + 1 < name.size();
             pos = name.find('_', pos + 1))
            if (!ends_in_category_word(name.substr(0, pos)))
                ++count[name.substr(0, pos)];
    }
    // The longest prefix that three quarters of the names (and at least two) share: TPM_CR50
    // beside TPM_CR50_MAX_BUFSIZE, TPM_CR50_I2C_DID_VID, ..., TPM_TI50_I2C_DID_VID; TPM_I2C,
    // not TPM_I2C_RETRY, beside TPM_I2C_BUS_DELAY and TPM_I2C_RETRY_DELAY_SHORT.
    const size_t total = std::set<std::string>(names.begin(), names.end()).size();
    std::string best;
    for (const auto& [prefix, n] : count)
        if (n >= 2 && 4 * static_cast<size_t>(n) >= 3 * total && prefix.size() > best.size())
            best = prefix;
    return best;
}

std::string file_name_prefix(const std::string& path) {
    std::string base =
        path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    base = base.substr(0, base.find('.'));
    std::string out;
    for (char c : base)
        out += std::isalnum(static_cast<unsigned char>(c))
                   ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                   : '_';
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
        out = "_" + out;
    return out;
}

std::string expand_slack_name(const std::string& name_template, const std::string& prefix) {
    static const std::string key = "{PREFIX}";
    std::string out = name_template;
    for (size_t pos = out.find(key); pos != std::string::npos; pos = out.find(key, pos))
        out.replace(pos, key.size(), prefix), pos += prefix.size();
    return out;
}

std::string unclashing_name(const std::string& name,
                            const std::function<bool(const std::string&)>& taken) {
    if (!taken(name))
        return name;
    if (!taken(name + "_US"))
        return name + "_US";
    for (int n = 2;; ++n)
        if (!taken(name + "_" + std::to_string(n)))
            return name + "_" + std::to_string(n);
}

} // namespace ksweep
