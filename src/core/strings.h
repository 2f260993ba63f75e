// The string helpers every folder used to write for itself: one trim, one word split.
// (starts_with/ends_with are std::string_view's own since C++20.)
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep {

// `s` without the leading and trailing characters of `blanks`.
inline std::string trim(std::string_view s, std::string_view blanks = " \t\r\n") {
    const size_t begin = s.find_first_not_of(blanks);
    if (begin == std::string_view::npos)
        return {};
    return std::string(s.substr(begin, s.find_last_not_of(blanks) - begin + 1));
}

// The whitespace-separated words of `text`, as `std::istream >> word` reads them.
inline std::vector<std::string> split_words(std::string_view text) {
    constexpr std::string_view kSpace = " \t\n\v\f\r";
    std::vector<std::string> words;
    for (size_t begin = text.find_first_not_of(kSpace); begin != std::string_view::npos;) {
        const size_t end = text.find_first_of(kSpace, begin);
        words.emplace_back(text.substr(begin, end - begin));
        begin = end == std::string_view::npos ? end : text.find_first_not_of(kSpace, end);
    }
    return words;
}

// A number of milliseconds as people write it: "12" when whole, else "2.5".
inline std::string format_ms(double ms) {
    char buf[32];
    if (ms == static_cast<double>(static_cast<long long>(ms)))
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(ms));
    else
        std::snprintf(buf, sizeof buf, "%.1f", ms);
    return buf;
}

} // namespace ksweep
