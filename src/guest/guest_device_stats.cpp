#include "guest/guest_device_stats.h"

#include <nlohmann/json.hpp>

namespace ksweep::guest {

std::string DeviceCounters::summary() const {
    return std::to_string(violations) + " timing violations, " + std::to_string(nacks) +
           " NACKs, " + std::to_string(protocol_errors) + " protocol errors, " +
           std::to_string(malformed_requests) + " malformed requests";
}

long DeviceCounters::counter(const std::string& name) const {
    auto it = counters.find(name);
    return it == counters.end() ? 0 : it->second;
}

std::optional<DeviceCounters> parse_device_stats(const std::string& json,
                                                 const std::string& benchmark_command) {
    const auto root = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    // A TPM counts commands, a device file's chip messages (table_device.h).
    if (!root.is_object() || !(root.contains("commands") || root.contains("messages")))
        return std::nullopt;
    DeviceCounters c;
    for (const auto& [key, value] : root.items())
        if (value.is_number_integer())
            c.counters[key] = value.get<long>();
    c.commands = c.counter("commands");
    c.violations = c.counter("violations");
    c.nacks = c.counter("nacks");
    c.protocol_errors = c.counter("protocol_errors");
    c.malformed_requests = c.counter("malformed_requests");
    if (auto by_code = root.find("commands_by_code"); by_code != root.end() && by_code->is_object())
        if (auto n = by_code->find(benchmark_command);
            n != by_code->end() && n->is_number_integer())
            c.extends = n->get<long>();
    return c;
}

} // namespace ksweep::guest
