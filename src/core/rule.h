// A rule is data (rules/<name>.yaml): which calls it looks at, the threshold, and the policy
// the fix follows. Loading reports malformed files as "file:line:col: what was expected".
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksweep {

enum class SlackPolicy { Fixed, Percent, Acpi };
// Auto: what the tree under the fix asks for (settle_target): fsleep where its fsleep() has a
// bounded slack and its documentation recommends it (v6.13+), usleep_range otherwise.
enum class Target { UsleepRange, Fsleep, Auto };
enum class Unit { Milliseconds, Microseconds };
// How the kernel turns the request into a timer: msleep()'s msecs_to_jiffies() plus, on trees
// that still have it, the historical extra jiffy; or the jiffies a conversion helper
// (msecs_to_jiffies, usecs_to_jiffies) returns, slept as they are by schedule_timeout().
enum class SleepModel { Msleep, Jiffies };
// When a call of a form may be rewritten at all.
enum class FixPolicy { Always, UnusedResult, Never };
// What makes a site actionable: checkpatch's fixed bound (0 < ms < threshold_ms), or the
// predicted overshoot at the tree's HZ above a percentage of the request (the v6.13 msleep()
// kernel-doc's view: level-0 slack is a tick over the request).
enum class ThresholdPolicy { Checkpatch, Hz };
// What the fix does with a sleep in a loop that gives up after a number of tries: the loop's
// budget is the driver's timeout, and a shorter sleep shortens it. Iopoll: the loop becomes the
// tree's read_poll_timeout() (or readx/readl/regmap_read_poll_timeout) with a timeout in
// microseconds; Keep: the sleep is rewritten and the budget's change is stated (commit message,
// cover letter, fix's report); Leave: the site stays, and the reason gives the figures.
enum class LoopPolicy { Iopoll, Keep, Leave };
// iopoll's timeout_us: Longest, the longest the loop waits today at any HZ the kernel offers
// (HZ=100's budget: the poll never gives up sooner than today, whatever HZ it is built with);
// TreeHz, today's budget at the tree's HZ; Nominal, the tries times the sleep as written.
enum class IopollTimeout { Longest, TreeHz, Nominal };

struct LoopRules {
    LoopPolicy count = LoopPolicy::Iopoll;  // count-ended loops
    LoopPolicy fallback = LoopPolicy::Keep; // those iopoll cannot rewrite (keep or leave)
    IopollTimeout timeout = IopollTimeout::Longest;
};

// One shape of call a rule looks at: callee(ARG), or callee(through(ARG)) when the sleep is
// given in jiffies converted from ARG.
struct CallForm {
    CallForm() = default;
    // callee(ARG) in milliseconds, msleep's model, always fixable: `functions: [msleep]`.
    explicit CallForm(std::string name) : callee(std::move(name)) {}

    std::string callee;  // "msleep", "schedule_timeout_uninterruptible"
    std::string through; // "msecs_to_jiffies": the callee's argument is through(ARG); "" none
    Unit unit = Unit::Milliseconds;
    SleepModel sleep = SleepModel::Msleep;
    FixPolicy fix = FixPolicy::Always;
    // Wakes on signals and returns the time left: usleep_range() does neither, so the call is
    // rewritten only when the rule allows losing that (Rule::allow_losing_interruptibility).
    bool interruptible = false;
    std::string why_not; // FixPolicy::Never: why such calls are left alone

    std::string display() const; // "schedule_timeout_uninterruptible(msecs_to_jiffies())"
};

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
    // The subsystem's own millisecond sleep helpers to prefer (tpm_msleep), used only when the
    // file sees one and its body is an hrtimer sleep of its parameter in milliseconds.
    std::vector<std::string> helpers;
};

struct Rule {
    std::string name;
    std::string summary;
    std::string type; // checkpatch-style type of its warnings, "MSLEEP"
    // The call shapes it looks at; `functions: [msleep]` in YAML is the short form of one
    // form per callee (milliseconds, msleep's model, always fixable).
    std::vector<CallForm> calls;
    std::vector<std::string> functions; // the callees of `calls`, once each
    ThresholdPolicy threshold = ThresholdPolicy::Checkpatch;
    long long threshold_ms = 20; // checkpatch: 0 < requested ms < threshold_ms is actionable
    int overshoot_percent = 25;  // hz: predicted - requested > this % of the request
    bool allow_losing_interruptibility = false;
    LoopRules loops; // count-ended loops: iopoll, keep or leave (`loops:` in YAML)

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

    // Adds a form, and its callee to `functions` when new.
    void add(CallForm form);
    bool is_rule_function(const std::string& callee) const;
    // The form a call of `callee` whose argument is through(...) ("" when it is not a call)
    // has, or nullptr.
    const CallForm* form_for(const std::string& callee, const std::string& through) const;
    // Whether the callee has forms that take their argument through a conversion call.
    bool takes_through(const std::string& callee) const;
    // "0 < value < 20 ms", or "overshoot > 25 % at the tree's HZ".
    std::string threshold_text() const;
    // A request of `requested_ms` that the sleep model says lasts `predicted_ms`.
    bool actionable(std::optional<double> requested_ms, double predicted_ms) const;

    // The policy in force for a tree-relative path, after overrides.
    Slack slack_for(const std::string& path) const;
    Target target_for(const std::string& path) const;
    std::string slack_name_for(const std::string& path) const;
    std::vector<std::string> helpers_for(const std::string& path) const;
    // Replaces Target::Auto, in the rule and its overrides, with the tree's choice.
    void settle_target(Target for_auto);
    bool has_target(Target t) const;
};

// A rule file that cannot be used: what() is "file:line:col: message".
struct RuleError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Rule load_rule(const std::string& path);
// The rules a command uses: `--rule` names (a shipped rule's name or a file), or, when none is
// given, the rules loaded by default (the registry in rule.cpp).
std::vector<Rule> load_rules(const std::vector<std::string>& names_or_paths);
Rule parse_rule(const std::string& yaml_text, const std::string& path_for_messages);

// The slack in µs for a sleep of `sleep_us` under a policy.
long long slack_us(const Slack& slack, long long sleep_us);

// Where the shipped rules live (compiled in; KSWEEP_DATA_DIR overrides).
std::string default_rule_path();
// The shipped rules loaded when no --rule is given, in the order their findings are fixed.
std::vector<std::string> default_rule_names();

std::string_view to_string(Unit unit);             // "ms", "us"
std::string_view to_string(LoopPolicy policy);     // "iopoll", "keep", "leave"
std::string_view to_string(IopollTimeout timeout); // "longest", "tree_hz", "nominal"
// "iopoll", "keep" or "leave" as a LoopPolicy; nullopt for anything else.
std::optional<LoopPolicy> loop_policy_named(const std::string& name);

} // namespace ksweep
