// A rule is data (rules/<name>.yaml): which calls it looks at, the threshold, and the policy
// the fix follows. Loading reports malformed files as "file:line:col: what was expected".
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep {

enum class SlackPolicy { Fixed, Percent, Acpi };
enum class Target { UsleepRange, Fsleep };

struct Slack {
    SlackPolicy policy = SlackPolicy::Percent;
    long long fixed_us = 0;  // policy fixed
    int percent = 25;        // policy percent
    long long floor_us = 50; // policy percent and acpi: never less than this
};

// Per-path policy changes; the longest matching path prefix wins.
struct RuleOverride {
    std::string path; // tree-relative prefix, e.g. "drivers/char/tpm/"
    std::optional<Slack> slack;
    std::optional<Target> target;
    std::optional<std::string> slack_name;
};

struct Rule {
    std::string name;
    std::string summary;
    std::vector<std::string> functions; // callees this rule looks at, e.g. {"msleep"}
    long long threshold_ms = 20;        // 0 < value < threshold is actionable

    Target target = Target::UsleepRange;
    Slack slack;
    std::string slack_name = "{PREFIX}_DELAY_RANGE"; // {PREFIX}: the file's macro prefix

    // Calls a millisecond macro may appear in and still be converted to microseconds, with the
    // call that replaces each ("msecs_to_jiffies" -> "usecs_to_jiffies"). The rule's own
    // functions map to the target.
    std::map<std::string, std::string> convertible;

    std::string subject_template; // commit subject summary, "{callee}: ..." placeholders
    std::string body_template;    // commit body

    std::vector<RuleOverride> overrides;

    std::string source_path; // the YAML file it came from

    bool is_rule_function(const std::string& callee) const;
    bool actionable(std::optional<long long> value_ms) const {
        return value_ms && *value_ms > 0 && *value_ms < threshold_ms;
    }

    // The policy in force for a tree-relative path, after overrides.
    Slack slack_for(const std::string& path) const;
    Target target_for(const std::string& path) const;
    std::string slack_name_for(const std::string& path) const;
};

// A rule file that cannot be used: what() is "file:line:col: message".
struct RuleError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Rule load_rule(const std::string& path);
Rule parse_rule(const std::string& yaml_text, const std::string& path_for_messages);

// The slack in µs for a sleep of `sleep_us` under a policy.
long long slack_us(const Slack& slack, long long sleep_us);

// Where the shipped rules live (compiled in; KSWEEP_DATA_DIR overrides).
std::string default_rule_path();

} // namespace ksweep
