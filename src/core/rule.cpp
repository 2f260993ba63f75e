#include "core/rule.h"

#include "core/data_dir.h"
#include "core/file_io.h"
#include "core/yaml_checks.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <initializer_list>
#include <sstream>
#include <utility>
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

// One of a key's named values: "unit must be ms or us, not 's'" otherwise.
template <typename T>
T parse_choice(const std::string& path, const YAML::Node& node, const char* what,
               std::initializer_list<std::pair<const char*, T>> choices) {
    const auto s = node.as<std::string>();
    std::string names;
    size_t i = 0;
    for (const auto& [name, value] : choices) {
        if (s == name)
            return value;
        names += std::string(i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + name;
        ++i;
    }
    Yaml::fail(path, node.Mark(), std::string(what) + " must be " + names + ", not '" + s + "'");
}

Target parse_target(const std::string& path, const YAML::Node& node) {
    return parse_choice<Target>(path, node, "target",
                                {{"auto", Target::Auto},
                                 {"usleep_range", Target::UsleepRange},
                                 {"fsleep", Target::Fsleep}});
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

Unit parse_unit(const std::string& path, const YAML::Node& node) {
    return parse_choice<Unit>(path, node, "unit",
                              {{"ms", Unit::Milliseconds}, {"us", Unit::Microseconds}});
}

SleepModel parse_sleep_model(const std::string& path, const YAML::Node& node) {
    return parse_choice<SleepModel>(
        path, node, "sleep", {{"msleep", SleepModel::Msleep}, {"jiffies", SleepModel::Jiffies}});
}

FixPolicy parse_fix(const std::string& path, const YAML::Node& node) {
    return parse_choice<FixPolicy>(path, node, "fix",
                                   {{"always", FixPolicy::Always},
                                    {"unused_result", FixPolicy::UnusedResult},
                                    {"never", FixPolicy::Never}});
}

CallForm parse_call_form(const std::string& path, const YAML::Node& node) {
    Yaml::require_map(path, node, "a call form");
    Yaml::reject_unknown_keys(path, node,
                              {"call", "through", "unit", "sleep", "fix", "interruptible", "why"});
    if (!node["call"])
        Yaml::fail(path, node.Mark(), "a call form needs 'call' (the callee's name)");
    CallForm form;
    form.callee = read_as<std::string>(path, node, "call", "a string");
    if (node["through"])
        form.through = read_as<std::string>(path, node, "through", "a string");
    if (node["unit"])
        form.unit = parse_unit(path, node["unit"]);
    if (node["sleep"])
        form.sleep = parse_sleep_model(path, node["sleep"]);
    if (node["fix"])
        form.fix = parse_fix(path, node["fix"]);
    if (node["interruptible"])
        form.interruptible = read_as<bool>(path, node, "interruptible", "true or false");
    if (node["why"])
        form.why_not = read_as<std::string>(path, node, "why", "a string");
    if (form.fix == FixPolicy::Never && form.why_not.empty())
        Yaml::fail(path, node.Mark(), "a form with 'fix: never' needs 'why' (said in the report)");
    if (form.sleep == SleepModel::Jiffies && form.through.empty())
        Yaml::fail(path, node.Mark(), "'sleep: jiffies' needs 'through' (the conversion call)");
    return form;
}

LoopRules parse_loops(const std::string& path, const YAML::Node& node) {
    Yaml::require_map(path, node, "loops");
    Yaml::reject_unknown_keys(path, node, {"count", "fallback", "timeout"});
    LoopRules loops;
    auto policy = [&](const char* key) {
        return parse_choice<LoopPolicy>(path, node[key], key,
                                        {{"iopoll", LoopPolicy::Iopoll},
                                         {"keep", LoopPolicy::Keep},
                                         {"leave", LoopPolicy::Leave}});
    };
    if (node["count"])
        loops.count = policy("count");
    if (node["fallback"]) {
        loops.fallback =
            parse_choice<LoopPolicy>(path, node["fallback"], "fallback",
                                     {{"keep", LoopPolicy::Keep}, {"leave", LoopPolicy::Leave}});
    }
    if (node["timeout"])
        loops.timeout = parse_choice<IopollTimeout>(path, node["timeout"], "timeout",
                                                    {{"longest", IopollTimeout::Longest},
                                                     {"tree_hz", IopollTimeout::TreeHz},
                                                     {"nominal", IopollTimeout::Nominal}});
    return loops;
}

ThresholdPolicy parse_threshold(const std::string& path, const YAML::Node& node) {
    return parse_choice<ThresholdPolicy>(
        path, node, "threshold",
        {{"checkpatch", ThresholdPolicy::Checkpatch}, {"hz", ThresholdPolicy::Hz}});
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

std::string_view to_string(Unit unit) {
    return unit == Unit::Microseconds ? "us" : "ms";
}

std::string_view to_string(LoopPolicy policy) {
    switch (policy) {
    case LoopPolicy::Iopoll:
        return "iopoll";
    case LoopPolicy::Keep:
        return "keep";
    case LoopPolicy::Leave:
        return "leave";
    }
    return "keep";
}

std::string_view to_string(IopollTimeout timeout) {
    switch (timeout) {
    case IopollTimeout::Longest:
        return "longest";
    case IopollTimeout::TreeHz:
        return "tree_hz";
    case IopollTimeout::Nominal:
        return "nominal";
    }
    return "longest";
}

std::optional<LoopPolicy> loop_policy_named(const std::string& name) {
    for (LoopPolicy p : {LoopPolicy::Iopoll, LoopPolicy::Keep, LoopPolicy::Leave})
        if (to_string(p) == name)
            return p;
    return std::nullopt;
}

std::string CallForm::display() const {
    return callee + "(" + (through.empty() ? "" : through + "()") + ")";
}

void Rule::add(CallForm form) {
    if (!is_rule_function(form.callee))
        functions.push_back(form.callee);
    calls.push_back(std::move(form));
}

bool Rule::is_rule_function(const std::string& callee) const {
    return std::find(functions.begin(), functions.end(), callee) != functions.end();
}

const CallForm* Rule::form_for(const std::string& callee, const std::string& through) const {
    for (const CallForm& form : calls)
        if (form.callee == callee && form.through == through)
            return &form;
    return nullptr;
}

bool Rule::takes_through(const std::string& callee) const {
    return std::any_of(calls.begin(), calls.end(), [&](const CallForm& form) {
        return form.callee == callee && !form.through.empty();
    });
}

std::string Rule::threshold_text() const {
    if (threshold == ThresholdPolicy::Checkpatch)
        return "0 < value < " + std::to_string(threshold_ms) + " ms";
    return "overshoot > " + std::to_string(overshoot_percent) + " % at the tree's HZ";
}

bool Rule::actionable(std::optional<double> requested_ms, double predicted_ms) const {
    if (!requested_ms || *requested_ms <= 0)
        return false;
    if (threshold == ThresholdPolicy::Checkpatch)
        return *requested_ms < static_cast<double>(threshold_ms);
    return (predicted_ms - *requested_ms) * 100 > overshoot_percent * *requested_ms;
}

Slack Rule::slack_for(const std::string& path) const {
    auto* o = best_override(overrides, path);
    return o && o->slack ? *o->slack : slack;
}

Target Rule::target_for(const std::string& path) const {
    auto* o = best_override(overrides, path);
    const Target t = o && o->target ? *o->target : target;
    // Not settled for a tree (settle_target): usleep_range, which every tree has.
    return t == Target::Auto ? Target::UsleepRange : t;
}

void Rule::settle_target(Target for_auto) {
    if (target == Target::Auto)
        target = for_auto;
    for (RuleOverride& o : overrides)
        if (o.target == Target::Auto)
            o.target = for_auto;
}

bool Rule::has_target(Target t) const {
    return target == t || std::any_of(overrides.begin(), overrides.end(),
                                      [&](const RuleOverride& o) { return o.target == t; });
}

std::vector<std::string> Rule::helpers_for(const std::string& path) const {
    auto* o = best_override(overrides, path);
    return o ? o->helpers : std::vector<std::string>{};
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
                              {"name", "summary", "type", "functions", "calls", "threshold",
                               "threshold_ms", "overshoot_percent", "allow_losing_interruptibility",
                               "target", "slack", "slack_name", "convertible", "subject", "body",
                               "overrides", "loops"});
    Rule rule;
    rule.source_path = path;
    for (const char* key : {"name", "threshold_ms"})
        if (!root[key])
            Yaml::fail(path, root.Mark(), std::string("a rule needs '") + key + "'");
    if (!root["functions"] == !root["calls"])
        Yaml::fail(path, root.Mark(), "a rule needs 'functions' or 'calls' (one of them)");
    rule.name = read_as<std::string>(path, root, "name", "a string");
    if (root["summary"])
        rule.summary = read_as<std::string>(path, root, "summary", "a string");
    if (root["functions"]) {
        for (const std::string& callee : parse_strings(path, root["functions"], "functions"))
            rule.add(CallForm{callee});
    } else {
        if (!root["calls"].IsSequence() || root["calls"].size() == 0)
            Yaml::fail(path, root["calls"].Mark(), "calls must be a non-empty list");
        for (const auto& node : root["calls"])
            rule.add(parse_call_form(path, node));
    }
    rule.type = root["type"] ? read_as<std::string>(path, root, "type", "a string")
                             : rule.functions.front();
    for (char& c : rule.type)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    rule.threshold_ms = read_as<long long>(path, root, "threshold_ms", "an integer (milliseconds)");
    if (rule.threshold_ms <= 0)
        Yaml::fail(path, root["threshold_ms"].Mark(), "'threshold_ms' must be positive");
    if (root["threshold"])
        rule.threshold = parse_threshold(path, root["threshold"]);
    if (root["overshoot_percent"]) {
        rule.overshoot_percent = read_as<int>(path, root, "overshoot_percent", "an integer");
        if (rule.overshoot_percent <= 0)
            Yaml::fail(path, root["overshoot_percent"].Mark(),
                       "'overshoot_percent' must be positive");
    }
    if (root["allow_losing_interruptibility"])
        rule.allow_losing_interruptibility =
            read_as<bool>(path, root, "allow_losing_interruptibility", "true or false");
    if (root["target"])
        rule.target = parse_target(path, root["target"]);
    if (root["loops"])
        rule.loops = parse_loops(path, root["loops"]);
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
            Yaml::reject_unknown_keys(path, node,
                                      {"path", "slack", "target", "slack_name", "helpers"});
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
            if (node["helpers"])
                o.helpers = parse_strings(path, node["helpers"], "helpers");
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

std::vector<std::string> default_rule_names() {
    return {"msleep_small", "short_jiffy_sleeps"};
}

std::vector<Rule> load_rules(const std::vector<std::string>& names_or_paths) {
    std::vector<std::string> wanted = names_or_paths;
    if (wanted.empty())
        wanted = default_rule_names();
    std::vector<Rule> rules;
    for (const std::string& w : wanted) {
        // A bare name is a shipped rule; anything with a '/' or '.yaml' is a file.
        const bool is_name = w.find('/') == std::string::npos && !w.ends_with(".yaml");
        Rule rule = load_rule(is_name ? data_file("rules/" + w + ".yaml") : w);
        for (const Rule& other : rules)
            if (other.name == rule.name)
                throw RuleError(rule.source_path + ": rule '" + rule.name + "' given twice");
        rules.push_back(std::move(rule));
    }
    return rules;
}

} // namespace ksweep
