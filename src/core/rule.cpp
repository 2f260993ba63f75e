#include "core/rule.h"

#include "core/data_dir.h"
#include "core/file_io.h"
#include "core/yaml_checks.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <yaml-cpp/yaml.h>

namespace ksweep {

namespace {

using Yaml = YamlChecks<RuleError>;

// Reads node[key] as T, or reports where the file says something else.
template <typename T>
T read_as(const std::string& path, const YAML::Node& node, const char* key, const char* expected) {
    try {
        return node[key].as<T>();
    } catch (const YAML::Exception&) {
        Yaml::fail(path, node[key].Mark(), std::string("'") + key + "' must be " + expected);
    }
}

Target parse_target(const std::string& path, const YAML::Node& node) {
    auto s = node.as<std::string>();
    if (s == "usleep_range")
        return Target::UsleepRange;
    if (s == "fsleep")
        return Target::Fsleep;
    Yaml::fail(path, node.Mark(), "target must be usleep_range or fsleep, not '" + s + "'");
}

Slack parse_slack(const std::string& path, const YAML::Node& node) {
    Yaml::require_map(path, node, "slack");
    Yaml::reject_unknown_keys(path, node, {"policy", "us", "percent", "floor_us"});
    if (!node["policy"])
        Yaml::fail(path, node.Mark(), "slack needs a 'policy' (fixed, percent or acpi)");
    Slack slack;
    auto policy = node["policy"].as<std::string>();
    if (policy == "fixed") {
        slack.policy = SlackPolicy::Fixed;
        if (!node["us"])
            Yaml::fail(path, node.Mark(), "a fixed slack needs 'us'");
        slack.fixed_us = read_as<long long>(path, node, "us", "an integer (microseconds)");
        if (slack.fixed_us <= 0)
            Yaml::fail(path, node["us"].Mark(), "'us' must be positive");
    } else if (policy == "percent") {
        slack.policy = SlackPolicy::Percent;
        if (node["percent"])
            slack.percent = read_as<int>(path, node, "percent", "an integer");
        if (slack.percent <= 0 || slack.percent > 100)
            Yaml::fail(path, node["percent"].Mark(), "'percent' must be between 1 and 100");
    } else if (policy == "acpi") {
        slack.policy = SlackPolicy::Acpi;
    } else {
        Yaml::fail(path, node["policy"].Mark(),
                   "slack policy must be fixed, percent or acpi, not '" + policy + "'");
    }
    if (node["floor_us"])
        slack.floor_us = read_as<long long>(path, node, "floor_us", "an integer (microseconds)");
    return slack;
}

std::vector<std::string> parse_strings(const std::string& path, const YAML::Node& node,
                                       const char* what) {
    if (!node.IsSequence())
        Yaml::fail(path, node.Mark(), std::string(what) + " must be a list");
    std::vector<std::string> out;
    for (const auto& item : node)
        out.push_back(item.as<std::string>());
    return out;
}

const RuleOverride* best_override(const std::vector<RuleOverride>& overrides,
                                  const std::string& path) {
    const RuleOverride* best = nullptr;
    for (const auto& o : overrides)
        if (path.compare(0, o.path.size(), o.path) == 0 &&
            (!best || o.path.size() > best->path.size()))
            best = &o;
    return best;
}

} // namespace

bool Rule::is_rule_function(const std::string& callee) const {
    return std::find(functions.begin(), functions.end(), callee) != functions.end();
}

Slack Rule::slack_for(const std::string& path) const {
    auto* o = best_override(overrides, path);
    return o && o->slack ? *o->slack : slack;
}

Target Rule::target_for(const std::string& path) const {
    auto* o = best_override(overrides, path);
    return o && o->target ? *o->target : target;
}

std::string Rule::slack_name_for(const std::string& path) const {
    auto* o = best_override(overrides, path);
    return o && o->slack_name ? *o->slack_name : slack_name;
}

long long slack_us(const Slack& slack, long long sleep_us) {
    switch (slack.policy) {
    case SlackPolicy::Fixed:
        return slack.fixed_us;
    case SlackPolicy::Percent:
        return std::max(slack.floor_us, sleep_us * slack.percent / 100);
    case SlackPolicy::Acpi:
        return std::max(slack.floor_us, sleep_us / 100);
    }
    return slack.fixed_us;
}

Rule parse_rule(const std::string& text, const std::string& path) {
    YAML::Node root = Yaml::load(text, path);
    Yaml::require_map(path, root, "a rule file");
    Yaml::reject_unknown_keys(path, root,
                              {"name", "summary", "functions", "threshold_ms", "target", "slack",
                               "slack_name", "convertible", "subject", "body", "overrides"});
    Rule rule;
    rule.source_path = path;
    for (const char* key : {"name", "functions", "threshold_ms"})
        if (!root[key])
            Yaml::fail(path, root.Mark(), std::string("a rule needs '") + key + "'");
    rule.name = read_as<std::string>(path, root, "name", "a string");
    if (root["summary"])
        rule.summary = read_as<std::string>(path, root, "summary", "a string");
    rule.functions = parse_strings(path, root["functions"], "functions");
    rule.threshold_ms = read_as<long long>(path, root, "threshold_ms", "an integer (milliseconds)");
    if (rule.threshold_ms <= 0)
        Yaml::fail(path, root["threshold_ms"].Mark(), "'threshold_ms' must be positive");
    if (root["target"])
        rule.target = parse_target(path, root["target"]);
    if (root["slack"])
        rule.slack = parse_slack(path, root["slack"]);
    if (root["slack_name"])
        rule.slack_name = read_as<std::string>(path, root, "slack_name", "a string");
    if (root["convertible"]) {
        Yaml::require_map(path, root["convertible"], "convertible");
        for (const auto& kv : root["convertible"])
            rule.convertible[kv.first.as<std::string>()] = kv.second.as<std::string>();
    }
    if (root["subject"])
        rule.subject_template = read_as<std::string>(path, root, "subject", "a string");
    if (root["body"])
        rule.body_template = read_as<std::string>(path, root, "body", "a string");
    if (root["overrides"]) {
        if (!root["overrides"].IsSequence())
            Yaml::fail(path, root["overrides"].Mark(), "overrides must be a list");
        for (const auto& node : root["overrides"]) {
            Yaml::require_map(path, node, "an override");
            Yaml::reject_unknown_keys(path, node, {"path", "slack", "target", "slack_name"});
            if (!node["path"])
                Yaml::fail(path, node.Mark(), "an override needs 'path'");
            RuleOverride o;
            o.path = read_as<std::string>(path, node, "path", "a string");
            if (node["slack"])
                o.slack = parse_slack(path, node["slack"]);
            if (node["target"])
                o.target = parse_target(path, node["target"]);
            if (node["slack_name"])
                o.slack_name = read_as<std::string>(path, node, "slack_name", "a string");
            rule.overrides.push_back(std::move(o));
        }
    }
    return rule;
}

Rule load_rule(const std::string& path) {
    const auto text = read_file(path);
    if (!text)
        throw RuleError(path + ": cannot open rule file");
    return parse_rule(*text, path);
}

std::string default_rule_path() {
    return data_file("rules/msleep_small.yaml");
}

} // namespace ksweep
