#include "rewrite/planner.h"

#include "rewrite/iopoll_rewrite.h"
#include "rewrite/kernel_style.h"
#include "rewrite/loop_budget.h"
#include "rewrite/slack_name.h"
#include "rewrite/sleep_eval.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ksweep {

namespace {

constexpr const char* kUsecPerMsec = "USEC_PER_MSEC";

bool is_decimal(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

// The body of a millisecond macro, in microseconds. "(N * 1000)" keeps the millisecond figure
// readable, as upstream a233a0289cf9 did; 1 ms is simply 1000.
std::string usec_body(std::string_view body) {
    if (body == "1")
        return "1000";
    if (is_decimal(body))
        return "(" + std::string(body) + " * 1000)";
    const bool bare = fully_parenthesised(body) || is_single_token(body);
    return "(" + (bare ? std::string(body) : "(" + std::string(body) + ")") + " * 1000)";
}

// The column the trailing comments of a block of #defines start at (the first one's), if any
// has one.
std::optional<unsigned> comment_column(std::string_view text, const FileIndex& index,
                                       const std::vector<const MacroDefinition*>& block) {
    for (const MacroDefinition* m : block)
        if (m->comment_token)
            return column_at(text, index.tokens()[*m->comment_token].begin);
    return std::nullopt;
}

// The #define whose directive holds `offset`, if any.
const MacroDefinition* enclosing_define(const FileIndex& index, unsigned offset) {
    for (const MacroDefinition& m : index.defines()) {
        const Directive& d = index.directives()[m.directive];
        if (d.begin <= offset && offset < d.end)
            return &m;
    }
    return nullptr;
}

bool mentions_any(std::string_view expr, const std::vector<std::string>& names) {
    const FileIndex tokens(expr);
    for (const FileToken& t : tokens.tokens())
        if (t.kind == FileToken::Identifier &&
            std::find(names.begin(), names.end(), t.text) != names.end())
            return true;
    return false;
}

// A comment that ends a statement's line, "; /* why */": [0, first) is the code before it
// (trailing blanks dropped), [second, end) the comment. nullopt when the tail has none.
std::optional<std::pair<size_t, size_t>> trailing_comment(std::string_view tail) {
    if (tail.size() < 2)
        return std::nullopt;
    size_t at = tail.find("/*");
    if (at == std::string_view::npos || tail.substr(tail.size() - 2) != "*/" ||
        tail.find("*/", at) != tail.size() - 2)
        at = tail.find("//");
    if (at == std::string_view::npos)
        return std::nullopt;
    size_t code_end = at;
    while (code_end > 0 && std::isspace(static_cast<unsigned char>(tail[code_end - 1])))
        --code_end;
    // The code before it must be the end of the statement, nothing that could hold "/*".
    if (tail.substr(0, code_end).find_first_of("\"'") != std::string_view::npos)
        return std::nullopt;
    return std::make_pair(code_end, at);
}

// What a site becomes before its text is written: the slack constant's name and place are
// chosen from all of them.
struct Pending {
    enum Kind { Literal, ScaleSite, ConvertMacro, ScaleMacro, Helper, Iopoll } kind;
    std::vector<Finding> findings;
    std::string macro;
    std::vector<const MacroDefinition*> defs;
    std::vector<MacroUse> uses;
    std::string why_scaled;  // why a same-file macro keeps its unit
    unsigned first_call = 0; // earliest call the group rewrites
    std::optional<IopollRewrite> iopoll;
};

class Planner {
  public:
    Planner(const Rule& rule, const std::string& path, const std::string& text,
            const FileIndex& index, const std::optional<SleepHelper>& helper,
            const LoopContext& loops)
        : rule_(rule), path_(path), text_(text), index_(index), target_(rule.target_for(path)),
          helper_(helper), loops_(loops) {}

    FilePlan run(const std::vector<Finding>& findings);

  private:
    void classify(const std::vector<Finding>& findings);
    // The rule's loop policy for a site in a count-ended (or unanalysed) loop: true when the
    // site is taken care of (an iopoll group, or left alone), false when the usual edit follows.
    bool by_loop_policy(const Finding& f);
    std::string leave_reason(const Finding& f, const LoopOutcome& outcome) const;
    std::optional<std::string> why_form_stays(const CallForm& form, const Finding& f) const;
    std::optional<std::string> why_not_convertible(const std::string& macro,
                                                   const std::vector<const MacroDefinition*>& defs,
                                                   const std::vector<MacroUse>& uses) const;
    void choose_slack();
    EditGroup build(const Pending& p) const;
    // Also records the new call, on one line, in group.calls.
    Edit call_edit(EditGroup& group, unsigned call_begin, unsigned call_end,
                   const std::string& min_usec) const;
    Edit call_edit(EditGroup& group, unsigned call_begin, unsigned call_end,
                   const CallText& call) const;
    Edit define_edit(EditGroup& group, const MacroDefinition* def, std::string body,
                     bool to_usec) const;
    bool is_rule_function(const std::string& name) const { return rule_.is_rule_function(name); }
    const char* target_name() const {
        return target_ == Target::Fsleep ? "fsleep" : "usleep_range";
    }
    void skip(const Finding& f, std::string reason) {
        plan_.skipped.push_back(SiteOutcome{f, false, "", std::move(reason), "", {}});
    }

    const Rule& rule_;
    const std::string& path_;
    const std::string& text_;
    const FileIndex& index_;
    Target target_;
    const std::optional<SleepHelper>& helper_;
    const LoopContext& loops_;
    std::vector<Pending> pending_;
    std::map<unsigned, LoopOutcome> kept_loops_; // keep: the outcome, for the group's sites
    std::set<unsigned> iopoll_calls_;            // sites whose loop becomes a poll
    FilePlan plan_;
};

FilePlan Planner::run(const std::vector<Finding>& findings) {
    classify(findings);
    const bool needs_slack = std::any_of(pending_.begin(), pending_.end(), [](const Pending& p) {
        return p.kind != Pending::Helper && p.kind != Pending::Iopoll;
    });
    if (target_ == Target::UsleepRange && needs_slack)
        choose_slack();
    for (const Pending& p : pending_)
        plan_.groups.push_back(build(p));
    return std::move(plan_);
}

void Planner::classify(const std::vector<Finding>& findings) {
    std::set<unsigned> seen;                 // a site reported once per expansion
    std::map<std::string, Pending> by_macro; // same-file macros, in name order
    for (const Finding& f : findings) {
        if (f.file != path_ || !is_rule_function(f.callee) ||
            (!f.rule.empty() && f.rule != rule_.name) || !seen.insert(f.call_begin).second)
            continue;
        const CallForm* form = rule_.form_for(f.callee, f.through);
        if (!form)
            continue;
        if (!f.value) {
            skip(f, "argument is not a constant");
            continue;
        }
        if (*f.value == 0) {
            skip(f, f.callee + "(0) only yields the CPU: left alone");
            continue;
        }
        if (!f.actionable)
            continue;
        if (f.inactive) {
            skip(f, "not compiled in this configuration");
            continue;
        }
        if (auto why = why_form_stays(*form, f)) {
            skip(f, *why);
            continue;
        }
        if (f.call_end > text_.size() || f.call_begin >= f.call_end ||
            text_.compare(f.call_begin, f.callee.size(), f.callee) != 0) {
            skip(f, "the finding does not match the file's text");
            continue;
        }
        if (const MacroDefinition* m = enclosing_define(index_, f.call_begin);
            m && m->function_like && mentions_any(f.argument, m->params)) {
            skip(f, "the argument depends on a parameter of macro " + m->name);
            continue;
        }

        if (by_loop_policy(f))
            continue;
        if (helper_ && f.unit == Unit::Milliseconds) {
            // The subsystem's helper takes the milliseconds as they are written.
            pending_.push_back(Pending{Pending::Helper, {f}, "", {}, {}, "", f.call_begin, {}});
            continue;
        }
        auto defs = f.constant.empty() ? std::vector<const MacroDefinition*>{}
                                       : index_.definitions_of(f.constant);
        // A millisecond macro of this file may become a microsecond one; other units and
        // values inside a conversion call are scaled where they are used.
        const bool defined_here = f.through.empty() && f.unit == Unit::Milliseconds &&
                                  f.argument == f.constant && !defs.empty() &&
                                  (f.defined_at.empty() || f.defined_at.rfind(path_ + ":", 0) == 0);
        if (defined_here) {
            Pending& p = by_macro[f.constant];
            if (p.findings.empty()) {
                p.macro = f.constant;
                p.defs = defs;
                p.uses = index_.uses_of(f.constant);
            }
            p.findings.push_back(f);
            continue;
        }
        Pending p{f.resolution == Resolution::Literal && is_decimal(f.argument)
                      ? Pending::Literal
                      : Pending::ScaleSite,
                  {f},
                  "",
                  {},
                  {},
                  "",
                  f.call_begin,
                  {}};
        pending_.push_back(std::move(p));
    }

    for (auto& [macro, p] : by_macro) {
        if (auto reason = why_not_convertible(macro, p.defs, p.uses)) {
            p.kind = Pending::ScaleMacro;
            p.why_scaled = *reason;
            p.first_call = p.findings.front().call_begin;
        } else {
            p.kind = Pending::ConvertMacro;
            p.first_call = ~0u;
            for (const MacroUse& u : p.uses)
                if (is_rule_function(u.callee))
                    p.first_call = std::min(p.first_call, u.call_begin);
        }
        pending_.push_back(std::move(p));
    }
    std::sort(pending_.begin(), pending_.end(),
              [](const Pending& a, const Pending& b) { return a.first_call < b.first_call; });
}

bool Planner::by_loop_policy(const Finding& f) {
    const bool counted = f.loop.ends_by == LoopEnd::Count;
    if (!counted && f.loop.ends_by != LoopEnd::Unknown)
        return false;
    LoopOutcome outcome;
    LoopPolicy policy = rule_.loops.count;
    if (!counted) {
        policy = rule_.loops.fallback;
        outcome.why = "its loop, if any, was not analysed (" +
                      (f.loop.note.empty() ? std::string("no AST") : f.loop.note) + ")";
    }
    if (policy == LoopPolicy::Iopoll) {
        TreeSleeps* sleeps = loops_.sleeps;
        const TreeDefines defines =
            sleeps ? TreeDefines([sleeps](const std::string& h, const std::string& m) {
                return sleeps->defines(h, m);
            })
                   : TreeDefines();
        IopollPlan p = plan_iopoll(rule_, f, text_, loops_.hz, defines);
        if (p.rewrite) {
            outcome.policy = "iopoll";
            outcome.helper = p.rewrite->helper;
            outcome.call = p.rewrite->call;
            outcome.sleep_us = p.rewrite->sleep_us;
            outcome.timeout_us = p.rewrite->timeout_us;
            outcome.timeout_why = p.rewrite->timeout_why;
            Pending pending{Pending::Iopoll, {f}, "", {}, {}, "", f.call_begin, {}};
            pending.iopoll = std::move(p.rewrite);
            pending_.push_back(std::move(pending));
            kept_loops_[f.call_begin] = outcome;
            iopoll_calls_.insert(f.call_begin);
            return true;
        }
        policy = rule_.loops.fallback;
        outcome.why = "read_poll_timeout() does not fit: " + p.why_not;
    }
    outcome.policy = std::string(to_string(policy));
    if (policy == LoopPolicy::Leave) {
        const long long us = *f.requested_us();
        outcome.after_ms_by_hz =
            budget_after_keep(f, target_, slack_us(rule_.slack_for(path_), us),
                              f.unit == Unit::Milliseconds ? helper_ : std::nullopt, loops_.sleeps);
        SiteOutcome left{f, false, "", leave_reason(f, outcome), "", {}};
        left.loop = outcome;
        plan_.skipped.push_back(std::move(left));
        return true;
    }
    kept_loops_[f.call_begin] = outcome;
    return false;
}

// "its loop gives up after 2 tries: the budget would fall from 24 to 7.5 ms at HZ=250 (...)".
std::string Planner::leave_reason(const Finding& f, const LoopOutcome& outcome) const {
    const std::string rule_says = " (the rule's loop policy: leave)";
    if (f.loop.ends_by != LoopEnd::Count)
        return outcome.why + rule_says;
    const std::string tries = f.loop.tries
                                  ? std::to_string(*f.loop.tries) + " tries"
                                  : "a count ksweep cannot read (" + f.loop.tries_text + ")";
    std::string out = "its loop gives up after " + tries;
    if (!f.loop.budget_ms_by_hz.empty() && !outcome.after_ms_by_hz.empty()) {
        const std::string way =
            budget_direction(f.loop.budget_ms_by_hz, outcome.after_ms_by_hz, loops_.hz);
        out += ": the budget would " +
               std::string(way == "falls"   ? "fall"
                           : way == "grows" ? "grow"
                                            : "stay") +
               " from " + budget_change(f.loop.budget_ms_by_hz, outcome.after_ms_by_hz, loops_.hz);
    }
    if (!outcome.why.empty())
        out += "; " + outcome.why;
    return out + rule_says;
}

// What the rule's form says of rewriting this call into an hrtimer sleep.
std::optional<std::string> Planner::why_form_stays(const CallForm& form, const Finding& f) const {
    if (form.fix == FixPolicy::Never)
        return form.why_not;
    if (form.interruptible && !rule_.allow_losing_interruptibility)
        return f.callee + "() wakes on a signal and returns the time left, " + target_name() +
               "() does neither: left alone (the rule's allow_losing_interruptibility is off)";
    if (form.fix == FixPolicy::UnusedResult || form.interruptible) {
        if (!f.result_used)
            return "spelled in a #define: whether its result (the time left) is used is not known";
        if (*f.result_used)
            return "its result (the time left) is used";
    }
    return std::nullopt;
}

std::optional<std::string>
Planner::why_not_convertible(const std::string& macro,
                             const std::vector<const MacroDefinition*>& defs,
                             const std::vector<MacroUse>& uses) const {
    if (defs.size() != 1)
        return macro + " is defined " + std::to_string(defs.size()) + " times";
    if (defs[0]->function_like || defs[0]->body_end == defs[0]->body_begin)
        return macro + " is not a plain constant";
    if (name_says_milliseconds(macro))
        return "the name " + macro + " says milliseconds";
    for (const MacroUse& u : uses) {
        const unsigned line = index_.line_of(index_.tokens()[u.token].begin);
        const std::string where = " at line " + std::to_string(line);
        if (u.under_defined)
            return macro + " is tested with #ifdef/defined()" + where;
        if (!u.directive.empty() && u.directive != "define")
            return macro + " is used in #" + u.directive + where;
        if (u.callee.empty())
            return macro + " is used outside a call" + where;
        if (iopoll_calls_.count(u.call_begin))
            return macro + " paces a loop rewritten into an iopoll helper" + where;
        if (!is_rule_function(u.callee) && !rule_.convertible.count(u.callee))
            return macro + " is passed to " + u.callee + "()" + where;
    }
    return std::nullopt;
}

void Planner::choose_slack() {
    std::set<std::string> converted;
    std::vector<std::string> delay_macros;
    unsigned first_use = ~0u;
    for (const Pending& p : pending_) {
        if (p.kind == Pending::ConvertMacro)
            converted.insert(p.macro);
        if (!p.macro.empty())
            delay_macros.push_back(p.macro);
        first_use = std::min(first_use, p.first_call);
    }
    plan_.anchor = find_slack_anchor(index_, first_use, converted);

    // The prefix the delay macros and the constant's neighbours share; else the file name.
    std::vector<std::string> pool = delay_macros;
    if (plan_.anchor)
        for (const MacroDefinition* m : plan_.anchor->block)
            pool.push_back(m->name);
    std::string prefix = shared_macro_prefix(pool);
    if (prefix.empty())
        prefix = file_name_prefix(path_);
    const std::string wanted = expand_slack_name(rule_.slack_name_for(path_), prefix);

    // A second run finds the constant the first one defined: use it again.
    const auto existing = index_.definitions_of(wanted);
    if (existing.size() == 1 && !existing[0]->function_like) {
        const std::string body(
            text_.substr(existing[0]->body_begin, existing[0]->body_end - existing[0]->body_begin));
        if (is_decimal(body)) {
            plan_.slack_name = wanted;
            plan_.existing_slack_us = std::stoll(body);
            return;
        }
    }
    plan_.slack_name =
        unclashing_name(wanted, [this](const std::string& n) { return index_.mentions(n); });
}

Edit Planner::call_edit(EditGroup& group, unsigned call_begin, unsigned call_end,
                        const std::string& min_usec) const {
    if (target_ == Target::Fsleep)
        return call_edit(group, call_begin, call_end, CallText{"fsleep", {{min_usec}}});
    return call_edit(group, call_begin, call_end,
                     CallText{"usleep_range", {{min_usec}, {min_usec, plan_.slack_name}}});
}

Edit Planner::call_edit(EditGroup& group, unsigned call_begin, unsigned call_end,
                        const CallText& call) const {
    const unsigned column = column_at(text_, call_begin);
    const bool tabs = line_uses_tabs(text_, call_begin);

    // What follows the call on its line stays there. Inside a #define, broken lines continue
    // with '\', aligned where the line's own '\' was.
    size_t line_end = text_.find('\n', call_end);
    line_end = line_end == std::string::npos ? text_.size() : line_end;
    std::string_view tail(text_.data() + call_end, line_end - call_end);
    auto trim_right = [](std::string_view& v) {
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back())))
            v.remove_suffix(1);
    };
    trim_right(tail);
    Continuation continuation;
    continuation.needed = enclosing_define(index_, call_begin) != nullptr;
    unsigned edit_end = call_end;
    if (!tail.empty() && tail.back() == '\\') {
        const unsigned backslash = call_end + static_cast<unsigned>(tail.size()) - 1;
        continuation.column = column_at(text_, backslash);
        edit_end = backslash + 1;
        tail.remove_suffix(1);
        trim_right(tail);
    }
    const unsigned tail_width = width_from(tail, 0) + (edit_end != call_end ? 2 : 0);

    group.calls[call_begin] = flat_call(call);
    // "msleep(16); /* why */": when the longer call and its comment no longer fit on one line,
    // the comment moves to its own line above the statement instead of pushing the call apart.
    if (const auto split = trailing_comment(tail);
        split && !continuation.needed && edit_end == call_end &&
        text_.find_first_not_of(" \t", line_start(text_, call_begin)) == call_begin &&
        layout_call(call, column, tail_width, tabs).find('\n') != std::string::npos) {
        const std::string code(tail.substr(0, split->first));
        const std::string comment(tail.substr(split->second));
        return Edit{call_begin, static_cast<unsigned>(call_end + tail.size()),
                    comment + "\n" + indent_to(column, tabs) +
                        layout_call(call, column, width_from(code, 0), tabs) + code,
                    -1};
    }
    std::string replacement = layout_call(call, column, tail_width, tabs, continuation);
    if (edit_end != call_end) {
        // The line's own '\' moves right when the call grew past it.
        replacement += std::string(tail);
        const size_t last_nl = replacement.rfind('\n');
        const unsigned col = last_nl == std::string::npos
                                 ? column + width_from(replacement, column)
                                 : width_from(std::string_view(replacement).substr(last_nl + 1), 0);
        replacement += (col < continuation.column ? pad_between(col, continuation.column, tabs)
                                                  : std::string(" ")) +
                       "\\";
    }
    return Edit{call_begin, edit_end, std::move(replacement), -1};
}

Edit Planner::define_edit(EditGroup& group, const MacroDefinition* def, std::string body,
                          bool to_usec) const {
    const Directive& d = index_.directives()[def->directive];
    unsigned end = def->body_end;
    if (def->comment_token && index_.line_of(def->body_begin) == d.end_line)
        end = index_.tokens()[*def->comment_token].end;
    group.defines.push_back(DefineRewrite{def, std::move(body), to_usec});
    return Edit{def->body_begin, end, "", static_cast<int>(group.defines.size() - 1)};
}

EditGroup Planner::build(const Pending& p) const {
    EditGroup g;
    g.findings = p.findings;
    g.uses_slack = target_ == Target::UsleepRange;
    long long shortest = *p.findings.front().requested_us();
    for (const Finding& f : p.findings)
        shortest = std::min(shortest, *f.requested_us());
    g.shortest_us = shortest;

    for (const Finding& f : p.findings)
        if (auto it = kept_loops_.find(f.call_begin); it != kept_loops_.end())
            g.loops[f.call_begin] = it->second;
    switch (p.kind) {
    case Pending::Iopoll: {
        const Finding& f = p.findings.front();
        g.edits = p.iopoll->edits;
        g.calls[f.call_begin] = p.iopoll->call;
        g.uses_slack = false;
        g.needs_iopoll_h = p.iopoll->needs_iopoll_h;
        g.how = "loop rewritten into " + p.iopoll->helper + "()";
        break;
    }
    case Pending::Helper: {
        const Finding& f = p.findings.front();
        g.edits.push_back(
            call_edit(g, f.call_begin, f.call_end, CallText{helper_->name, {{f.argument}}}));
        g.uses_slack = false;
        g.uses_helper = true;
        g.how = "the tree's own " + helper_->name + "() (" + helper_->defined_at + ")";
        break;
    }
    case Pending::Literal: {
        const Finding& f = p.findings.front();
        g.edits.push_back(
            call_edit(g, f.call_begin, f.call_end, std::to_string(*f.requested_us())));
        g.how = "literal in usec";
        break;
    }
    case Pending::ScaleSite: {
        const Finding& f = p.findings.front();
        const std::string arg =
            needs_parens_before_multiply(f.argument) ? "(" + f.argument + ")" : f.argument;
        if (f.unit == Unit::Microseconds) {
            g.edits.push_back(call_edit(g, f.call_begin, f.call_end, arg));
            g.how = "in usec already (" + std::string(to_string(f.resolution)) + ")";
        } else {
            g.edits.push_back(call_edit(g, f.call_begin, f.call_end, arg + " * " + kUsecPerMsec));
            g.how = "scaled at the call site (" + std::string(to_string(f.resolution)) + ")";
        }
        break;
    }
    case Pending::ScaleMacro: {
        for (const MacroDefinition* def : p.defs) {
            const std::string body(text_.substr(def->body_begin, def->body_end - def->body_begin));
            if (needs_parens_before_multiply(body))
                g.edits.push_back(define_edit(g, def, "(" + body + ")", false));
        }
        for (const Finding& f : p.findings)
            g.edits.push_back(
                call_edit(g, f.call_begin, f.call_end, p.macro + " * " + kUsecPerMsec));
        g.how = "scaled at the call site: " + p.why_scaled;
        break;
    }
    case Pending::ConvertMacro: {
        const MacroDefinition* def = p.defs.front();
        const std::string body(text_.substr(def->body_begin, def->body_end - def->body_begin));
        g.edits.push_back(define_edit(g, def, usec_body(body), true));
        bool sleeps = false;
        for (const MacroUse& u : p.uses) {
            if (is_rule_function(u.callee)) {
                g.edits.push_back(call_edit(g, u.call_begin, u.call_end, p.macro));
                sleeps = true;
            } else {
                const std::string& to = rule_.convertible.at(u.callee);
                g.edits.push_back(Edit{
                    u.call_begin, static_cast<unsigned>(u.call_begin + u.callee.size()), to, -1});
            }
        }
        g.uses_slack = g.uses_slack && sleeps;
        g.how = "macro " + p.macro + " converted to usec";
        break;
    }
    }
    std::sort(g.edits.begin(), g.edits.end(),
              [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    return g;
}

} // namespace

FilePlan plan_file(const Rule& rule, const std::string& path, const std::string& text,
                   const FileIndex& index, const std::vector<Finding>& findings,
                   const std::optional<SleepHelper>& helper, const LoopContext& loops) {
    FilePlan plan = Planner(rule, path, text, index, helper, loops).run(findings);
    // Without a place for the slack constant, the sites that name it cannot be fixed.
    if (!plan.slack_name.empty() && !plan.existing_slack_us && !plan.anchor) {
        std::vector<EditGroup> kept;
        for (EditGroup& g : plan.groups) {
            if (!g.uses_slack) {
                kept.push_back(std::move(g));
                continue;
            }
            for (const Finding& f : g.findings)
                plan.skipped.push_back(
                    SiteOutcome{f,
                                false,
                                "",
                                "no #define block or #include before it for the slack constant",
                                "",
                                {}});
        }
        plan.groups = std::move(kept);
    }
    return plan;
}

FinalEdits finalize_plan(const Rule& rule, const std::string& path, const std::string& text,
                         const FileIndex& index, FilePlan& plan,
                         const std::vector<bool>& accepted) {
    FinalEdits out;

    // The #define lines that change, per block, so that their comments stay aligned.
    struct Line {
        Edit* edit;
        const DefineRewrite* rewrite;
    };
    std::map<const MacroDefinition*, size_t> block_of;
    const auto blocks = define_blocks(index);
    for (size_t b = 0; b < blocks.size(); ++b)
        for (const MacroDefinition* m : blocks[b])
            block_of[m] = b;
    std::map<size_t, std::vector<Line>> lines_by_block;

    long long shortest_us = 0;
    bool needs_slack = false;
    for (size_t i = 0; i < plan.groups.size(); ++i) {
        if (!accepted[i])
            continue;
        EditGroup& g = plan.groups[i];
        for (Edit& e : g.edits)
            if (e.define_rewrite >= 0)
                lines_by_block[block_of[g.defines[e.define_rewrite].def]].push_back(
                    {&e, &g.defines[e.define_rewrite]});
        if (g.uses_slack) {
            shortest_us = needs_slack ? std::min(shortest_us, g.shortest_us) : g.shortest_us;
            needs_slack = true;
        }
    }

    std::map<size_t, unsigned> realigned_column; // blocks whose comments moved
    for (auto& [block, lines] : lines_by_block) {
        struct Shape {
            unsigned body_end_col = 0, comment_col = 0;
            bool tabs = false;
            std::optional<std::string> comment;
        };
        std::vector<Shape> shapes;
        bool overflow = false, any_tabs = false;
        unsigned widest = 0;
        for (const Line& l : lines) {
            Shape s;
            const MacroDefinition& def = *l.rewrite->def;
            s.body_end_col = column_at(text, def.body_begin) + width_from(l.rewrite->body, 0);
            if (l.edit->end != def.body_end) { // the comment is part of the edit
                const FileToken& c = index.tokens()[*def.comment_token];
                s.comment_col = column_at(text, c.begin);
                s.tabs = text.substr(def.body_end, c.begin - def.body_end).find('\t') !=
                         std::string::npos;
                s.comment =
                    l.rewrite->comment_to_usec ? comment_in_usec(c.text).value_or(c.text) : c.text;
                overflow |= s.body_end_col + 1 > s.comment_col;
                any_tabs |= s.tabs;
                widest = std::max({widest, s.comment_col, s.body_end_col + 1});
            } else if (l.rewrite->comment_to_usec) {
                // A macro now in microseconds says so, as upstream a233a0289cf9 wrote it: at
                // the column of the block's comments, else a tab stop after the body.
                s.tabs = text.substr(def.name_end, def.body_begin - def.name_end).find('\t') !=
                         std::string::npos;
                const std::optional<unsigned> block_col =
                    comment_column(text, index, blocks[block]);
                s.comment_col = block_col ? *block_col
                                : s.tabs  ? (s.body_end_col / 8 + 1) * 8
                                          : s.body_end_col + 1;
                s.comment = "/* usec */";
                overflow |= s.body_end_col + 1 > s.comment_col;
                any_tabs |= s.tabs;
                widest = std::max({widest, s.comment_col, s.body_end_col + 1});
            }
            shapes.push_back(s);
        }
        if (overflow) {
            if (any_tabs)
                widest = (widest + 7) / 8 * 8;
            realigned_column[block] = widest;
        }
        for (size_t i = 0; i < lines.size(); ++i) {
            const Shape& s = shapes[i];
            std::string t = lines[i].rewrite->body;
            if (s.comment) {
                const unsigned col = overflow ? widest : s.comment_col;
                t += pad_between(s.body_end_col, col, s.tabs) + *s.comment;
            }
            lines[i].edit->text = std::move(t);
        }
    }

    bool needs_iopoll_h = false;
    for (size_t i = 0; i < plan.groups.size(); ++i)
        if (accepted[i]) {
            for (const Edit& e : plan.groups[i].edits)
                out.edits.push_back(e);
            needs_iopoll_h = needs_iopoll_h || plan.groups[i].needs_iopoll_h;
        }
    if (needs_iopoll_h)
        if (auto include = iopoll_include(text))
            out.edits.push_back(*include);

    if (needs_slack && plan.existing_slack_us) {
        out.slack_us = *plan.existing_slack_us;
    } else if (needs_slack) {
        out.slack_us = slack_us(rule.slack_for(path), shortest_us);
        std::optional<unsigned> column;
        if (!plan.anchor->block.empty()) {
            const auto it = realigned_column.find(block_of[plan.anchor->block.back()]);
            if (it != realigned_column.end())
                column = it->second;
        }
        const SlackLine line =
            slack_line(index, text, *plan.anchor, plan.slack_name, out.slack_us, column);
        out.edits.push_back(Edit{line.offset, line.offset, line.text, -1});
        out.slack_defined_here = true;
    }
    return out;
}

} // namespace ksweep
