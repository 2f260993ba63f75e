#include "device/stats_device.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ksweep::device {

std::string stats_words(const std::string& stats_json) {
    const auto root = nlohmann::ordered_json::parse(stats_json, nullptr, false);
    if (!root.is_object())
        return "";
    std::string words;
    for (const auto& [key, value] : root.items())
        if (value.is_number_integer())
            words +=
                (words.empty() ? "" : " ") + key + "=" + std::to_string(value.get<long long>());
    return words + "\n";
}

bool StatsDevice::write(std::span<const uint8_t>) {
    offset_ = 0;
    text_.clear();
    return true;
}

bool StatsDevice::read(std::span<uint8_t> out) {
    if (offset_ == 0)
        text_ = stats_words(snapshot_());
    size_t n = offset_ < text_.size() ? std::min(out.size(), text_.size() - offset_) : 0;
    std::copy_n(text_.begin() + static_cast<ptrdiff_t>(offset_), n, out.begin());
    std::fill(out.begin() + static_cast<ptrdiff_t>(n), out.end(), 0);
    offset_ += out.size();
    return true;
}

} // namespace ksweep::device
