// A definition's location as findings spell it (Finding::defined_at, "drivers/x.h:12").
#pragma once

#include <string>
#include <utility>

namespace ksweep::check {

// "drivers/x.c:12" -> {"drivers/x.c", 12}; line 0 when there is none.
inline std::pair<std::string, unsigned> split_location(const std::string& where) {
    const size_t colon = where.rfind(':');
    if (colon == std::string::npos)
        return {where, 0};
    try {
        return {where.substr(0, colon), static_cast<unsigned>(std::stoul(where.substr(colon + 1)))};
    } catch (const std::exception&) {
        return {where, 0};
    }
}

} // namespace ksweep::check
