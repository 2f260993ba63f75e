#include "guest/guest_device_stats.h"

#include <yaml-cpp/yaml.h>

namespace ksweep::guest {

std::string DeviceCounters::summary() const {
    return std::to_string(violations) + " timing violations, " + std::to_string(nacks) +
           " NACKs, " + std::to_string(protocol_errors) + " protocol errors, " +
           std::to_string(malformed_requests) + " malformed requests";
}

std::optional<DeviceCounters> parse_device_stats(const std::string& json,
                                                 const std::string& benchmark_command) {
    try {
        // JSON is YAML 1.2 flow syntax: yaml-cpp (already a dependency) reads it.
        YAML::Node root = YAML::Load(json);
        if (!root.IsMap() || !root["commands"])
            return std::nullopt;
        auto count = [&](const char* key) { return root[key] ? root[key].as<long>() : 0L; };
        DeviceCounters c;
        c.commands = count("commands");
        c.violations = count("violations");
        c.nacks = count("nacks");
        c.protocol_errors = count("protocol_errors");
        c.malformed_requests = count("malformed_requests");
        if (auto by_code = root["commands_by_code"]; by_code && by_code[benchmark_command])
            c.extends = by_code[benchmark_command].as<long>();
        return c;
    } catch (const YAML::Exception&) {
        return std::nullopt;
    }
}

} // namespace ksweep::guest
