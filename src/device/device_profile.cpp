#include "device/device_profile.h"

#include "core/yaml_checks.h"

#include <algorithm>
#include <cmath>
#include <yaml-cpp/yaml.h>

namespace ksweep::device {

namespace {

using Yaml = YamlChecks<ProfileError>;

constexpr RequirementInfo kRequirements[] = {
    {Requirement::min_status_gap, "min_status_gap", "min_status_gap_us", "status_gap_violations",
     &TimingRequirements::min_status_gap},
    {Requirement::min_poll_interval, "min_poll_interval", "min_poll_interval_us",
     "poll_interval_violations", &TimingRequirements::min_poll_interval},
    {Requirement::min_ready_poll_interval, "min_ready_poll_interval", "min_ready_poll_interval_us",
     "ready_poll_violations", &TimingRequirements::min_ready_poll_interval},
    {Requirement::min_write_idle, "min_write_idle", "min_write_idle_us", "write_idle_violations",
     &TimingRequirements::min_write_idle},
    {Requirement::min_ready_write_gap, "min_ready_write_gap", "min_ready_write_gap_us",
     "ready_write_gap_violations", &TimingRequirements::min_ready_write_gap},
};

// The commands the Linux TPM core and the extend benchmark send, plus a few common ones; TPM
// 1.2 ordinals (TPM Main Part 2, 17) below 0x100, TPM 2.0 codes from 0x11f.
constexpr std::pair<const char*, uint32_t> kCommandCodes[] = {
    {"TPM_OIAP", 0x0A},
    {"TPM_OSAP", 0x0B},
    {"TPM_Extend", 0x14},
    {"TPM_PCRRead", 0x15},
    {"TPM_GetRandom", 0x46},
    {"TPM_SelfTestFull", 0x50},
    {"TPM_ContinueSelfTest", 0x53},
    {"TPM_GetTestResult", 0x54},
    {"TPM_GetCapability", 0x65},
    {"TPM_ReadPubek", 0x7C},
    {"TPM_SaveState", 0x98},
    {"TPM_Startup", 0x99},
    {"TPM_PCR_Reset", 0xC8},
    {"TPM2_CreatePrimary", 0x131},
    {"TPM2_SelfTest", 0x143},
    {"TPM2_Startup", 0x144},
    {"TPM2_Shutdown", 0x145},
    {"TPM2_Create", 0x153},
    {"TPM2_Load", 0x157},
    {"TPM2_Unseal", 0x15E},
    {"TPM2_ContextLoad", 0x161},
    {"TPM2_ContextSave", 0x162},
    {"TPM2_FlushContext", 0x165},
    {"TPM2_ReadPublic", 0x173},
    {"TPM2_StartAuthSession", 0x176},
    {"TPM2_GetCapability", 0x17A},
    {"TPM2_GetRandom", 0x17B},
    {"TPM2_PCR_Read", 0x17E},
    {"TPM2_PCR_Extend", 0x182},
    {"TPM2_Hash", 0x17D},
};

// A non-negative time in microseconds (fractions allowed: a 400 kHz byte is 22.5 µs).
Duration read_us(const std::string& path, const YAML::Node& node, const std::string& key) {
    double us;
    try {
        us = node.as<double>();
    } catch (const YAML::Exception&) {
        Yaml::fail(path, node.Mark(), "'" + key + "' must be a number of microseconds");
    }
    if (!std::isfinite(us) || us < 0 || us > 60e6)
        Yaml::fail(path, node.Mark(), "'" + key + "' must be between 0 and 60000000 microseconds");
    return Duration(static_cast<int64_t>(std::llround(us * 1000)));
}

uint32_t read_command_code(const std::string& path, const YAML::Node& key) {
    auto text = key.as<std::string>();
    if (auto code = tpm_command_code(text))
        return *code;
    try {
        size_t used = 0;
        unsigned long value = std::stoul(text, &used, 0);
        if (used == text.size() && value <= 0xffffffffu)
            return static_cast<uint32_t>(value);
    } catch (const std::exception&) {
    }
    Yaml::fail(path, key.Mark(), "'" + text + "' is neither a known TPM command name nor a number");
}

} // namespace

std::span<const RequirementInfo> requirement_table() {
    return kRequirements;
}

const RequirementInfo& requirement_info(Requirement requirement) {
    for (const auto& info : kRequirements)
        if (info.requirement == requirement)
            return info;
    throw std::logic_error("requirement missing from the table");
}

const std::optional<Duration>& TimingRequirements::get(Requirement requirement) const {
    return this->*requirement_info(requirement).value;
}

std::vector<Requirement> stated_requirements(const TimingRequirements& requirements) {
    std::vector<Requirement> stated;
    for (const auto& info : kRequirements)
        if (requirements.get(info.requirement))
            stated.push_back(info.requirement);
    return stated;
}

std::optional<uint32_t> tpm_command_code(const std::string& name) {
    for (const auto& [n, code] : kCommandCodes)
        if (name == n)
            return code;
    return std::nullopt;
}

std::string tpm_command_name(uint32_t code) {
    for (const auto& [n, c] : kCommandCodes)
        if (code == c)
            return n;
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", code);
    return buf;
}

Duration DeviceProfile::execution_time(uint32_t command_code) const {
    auto it = command_time.find(command_code);
    return it == command_time.end() ? default_command_time : it->second;
}

DeviceProfile parse_device_profile(const std::string& text, const std::string& path) {
    YAML::Node root = Yaml::load(text, path);
    Yaml::require_map(path, root, "a device profile");
    Yaml::reject_unknown_keys(
        path, root,
        {"name", "description", "bus", "chip", "commands", "delays", "seed", "requirements"});
    if (!root["name"])
        Yaml::fail(path, root.Mark(), "a device profile needs 'name'");
    DeviceProfile p;
    p.source_path = path;
    p.name = root["name"].as<std::string>();
    if (root["description"])
        p.description = root["description"].as<std::string>();

    if (auto bus = root["bus"]) {
        Yaml::require_map(path, bus, "bus");
        Yaml::reject_unknown_keys(path, bus, {"byte_time_us"});
        if (bus["byte_time_us"])
            p.bus_byte_time = read_us(path, bus["byte_time_us"], "byte_time_us");
    }
    if (auto chip = root["chip"]) {
        Yaml::require_map(path, chip, "chip");
        Yaml::reject_unknown_keys(path, chip,
                                  {"burst_count", "command_ready_us", "interrupt_delay_us",
                                   "locality_grant_us", "access_request_pending",
                                   "busy_after_fifo_write_us", "no_burst_after_fifo_write_us"});
        if (chip["burst_count"]) {
            int burst = 0;
            try {
                burst = chip["burst_count"].as<int>();
            } catch (const YAML::Exception&) {
            }
            // The driver reads the burst count as one byte and needs 10 for a response header.
            if (burst < 10 || burst > 255)
                Yaml::fail(path, chip["burst_count"].Mark(),
                           "'burst_count' must be between 10 and 255");
            p.burst_count = static_cast<uint8_t>(burst);
        }
        const std::pair<const char*, Duration DeviceProfile::*> times[] = {
            {"command_ready_us", &DeviceProfile::command_ready_time},
            {"interrupt_delay_us", &DeviceProfile::interrupt_delay},
            {"locality_grant_us", &DeviceProfile::locality_grant_time},
            {"busy_after_fifo_write_us", &DeviceProfile::busy_after_fifo_write},
            {"no_burst_after_fifo_write_us", &DeviceProfile::no_burst_after_fifo_write}};
        for (const auto& [key, value] : times)
            if (chip[key])
                p.*value = read_us(path, chip[key], key);
        if (auto pending = chip["access_request_pending"]) {
            try {
                p.access_request_pending = pending.as<bool>();
            } catch (const YAML::Exception&) {
                Yaml::fail(path, pending.Mark(), "'access_request_pending' must be true or false");
            }
        }
    }
    if (!root["commands"] && !root["delays"])
        Yaml::fail(path, root.Mark(),
                   "a device profile needs 'commands' (a TPM: with at least 'default_us') or "
                   "'delays' (a device file's chip)");
    if (auto commands = root["commands"]) {
        Yaml::require_map(path, commands, "commands");
        if (!commands["default_us"])
            Yaml::fail(path, commands.Mark(), "'commands' needs 'default_us'");
        for (const auto& kv : commands) {
            auto key = kv.first.as<std::string>();
            if (key == "default_us")
                p.default_command_time = read_us(path, kv.second, key);
            else
                p.command_time[read_command_code(path, kv.first)] = read_us(path, kv.second, key);
        }
    }
    if (auto delays = root["delays"]) {
        Yaml::require_map(path, delays, "delays");
        for (const auto& kv : delays) {
            auto key = kv.first.as<std::string>();
            Yaml::require_map(path, kv.second, ("delay '" + key + "'").c_str());
            Yaml::reject_unknown_keys(path, kv.second, {"us", "spread_us"});
            if (!kv.second["us"])
                Yaml::fail(path, kv.second.Mark(), "delay '" + key + "' needs 'us'");
            DelaySpec delay{read_us(path, kv.second["us"], "us"), {}};
            if (kv.second["spread_us"])
                delay.spread = read_us(path, kv.second["spread_us"], "spread_us");
            if (delay.spread > delay.typical)
                Yaml::fail(path, kv.second["spread_us"].Mark(),
                           "'spread_us' must not exceed 'us' (a delay is never negative)");
            p.delays[key] = delay;
        }
    }
    if (auto seed = root["seed"]) {
        try {
            p.seed = seed.as<uint64_t>();
        } catch (const YAML::Exception&) {
            Yaml::fail(path, seed.Mark(), "'seed' must be a non-negative integer");
        }
    }
    if (auto req = root["requirements"]) {
        Yaml::require_map(path, req, "requirements");
        for (const auto& kv : req) {
            auto key = kv.first.as<std::string>();
            auto info =
                std::find_if(std::begin(kRequirements), std::end(kRequirements),
                             [&](const RequirementInfo& i) { return key == i.profile_key; });
            if (info == std::end(kRequirements))
                Yaml::fail(path, kv.first.Mark(), "unknown key '" + key + "'");
            p.requirements.*info->value = read_us(path, kv.second, key);
        }
    }
    return p;
}

DeviceProfile load_device_profile(const std::string& path) {
    return parse_device_profile(Yaml::read_text(path, "device profile"), path);
}

} // namespace ksweep::device
