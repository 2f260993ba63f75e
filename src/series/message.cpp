#include "series/message.h"

#include "rewrite/loop_budget.h"
#include "series/text_wrap.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

namespace ksweep::series {

namespace {

// Used when a rule file has no templates of its own.
constexpr const char* kDefaultSubject = "Use {target}() for short sleeps";
constexpr const char* kDefaultBody =
    "{callee}() of less than {threshold_ms} ms sleeps longer than asked ({model}):\n\n"
    "{sites}\n\n{loops}\n\n{timers_advice}\n{slack}\n\n{measured}";

std::string fmt_ms(double ms) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", ms);
    return buf;
}

std::string base_name(const std::string& path) {
    return path.substr(path.rfind('/') + 1);
}

std::string callee_list(const Rule& rule) {
    std::string out;
    for (size_t i = 0; i < rule.functions.size(); ++i)
        out += (i ? "/" : "") + rule.functions[i];
    return out;
}

// The iopoll helper every fixed site of the file became, or "".
std::string poll_only(const FileFix& fix) {
    std::string poll;
    for (const SiteOutcome& s : fix.sites) {
        if (!s.fixed)
            continue;
        if (s.loop.policy != "iopoll")
            return "";
        poll = s.loop.helper;
    }
    return poll;
}

// What the fix calls: the subsystem's own helper where it used one, the iopoll helper where
// every site became a poll, else the rule's target.
std::string target_name(const Rule& rule, const FileFix& fix) {
    if (fix.helper)
        return fix.helper->name;
    if (std::string poll = poll_only(fix); !poll.empty())
        return poll;
    return rule.target_for(fix.file) == Target::Fsleep ? "fsleep" : "usleep_range";
}

std::string site_lines(const MessageContext& ctx) {
    std::string out;
    bool several_files = ctx.files.size() > 1;
    for (const auto* f : ctx.files) {
        for (const auto& site : f->sites) {
            if (!site.fixed)
                continue;
            const Finding& fd = site.finding;
            std::string where = several_files ? base_name(f->file) + ": " : "";
            if (!fd.function.empty())
                where += fd.function + "(): ";
            std::string value = fd.value_text();
            std::string call;
            for (char c : fd.call) // a call spread over lines reads as one
                if (!std::isspace(static_cast<unsigned char>(c)))
                    call += c;
                else if (!call.empty() && call.back() != ' ')
                    call += ' ';
            std::string line = "  " + where + call;
            if (fd.call != fd.callee + "(" + std::to_string(fd.value.value_or(-1)) + ")")
                line += " (" + value + ")";
            line += " sleeps up to " + fmt_ms(fd.predicted_sleep_ms) + " ms";
            out += line + "\n";
        }
    }
    if (!out.empty())
        out.pop_back();
    return out;
}

using kbuild::FsleepKind;

FsleepKind fsleep_kind(const MessageContext& ctx) {
    return ctx.sleep_api ? ctx.sleep_api->fsleep : FsleepKind::Unknown;
}

// What fsleep() does in this tree, as a sentence ("" when the tree does not say).
std::string tree_fsleep(const MessageContext& ctx) {
    const std::string where = ctx.sleep_api && !ctx.sleep_api->fsleep_source.empty()
                                  ? " (" + ctx.sleep_api->fsleep_source + ")"
                                  : "";
    switch (fsleep_kind(ctx)) {
    case FsleepKind::QuarterSlack:
        return " In this tree" + where +
               " that is usleep_range() with 25% slack below four ticks and msleep() above.";
    case FsleepKind::DoubleRange:
        return " In this tree" + where + " that is usleep_range(us, 2 * us) up to 20 ms.";
    case FsleepKind::Absent:
    case FsleepKind::Unknown:
        break;
    }
    return "";
}

// Whose slack a 25% policy is: this tree's fsleep(), or only that of later kernels.
std::string quarter_slack_origin(const MessageContext& ctx) {
    switch (fsleep_kind(ctx)) {
    case FsleepKind::QuarterSlack:
        return "the slack this tree's fsleep() uses";
    case FsleepKind::DoubleRange:
        return "the slack fsleep() uses from v6.13 on (this tree's allows 100%)";
    case FsleepKind::Absent:
    case FsleepKind::Unknown:
        break;
    }
    return "the slack fsleep() uses from v6.13 on";
}

std::string slack_sentence(const MessageContext& ctx) {
    if (ctx.files.empty())
        return "";
    const FileFix& f = *ctx.files.front();
    const Slack slack = ctx.rule->slack_for(f.file);
    std::string target = target_name(*ctx.rule, f);
    if (f.helper && f.slack_name.empty())
        return target + "() (" + f.helper->defined_at +
               ") is the subsystem's own usleep_range() of a number of milliseconds: the fix "
               "calls it with the value as written instead of adding a slack constant.";
    if (target == "fsleep")
        return "fsleep() picks the sleep primitive and its slack itself." + tree_fsleep(ctx);
    if (target == poll_only(f))
        return ""; // the loop paragraph says what the poll sleeps
    std::string name = f.slack_name.empty() ? "" : " (" + f.slack_name + ")";
    switch (slack.policy) {
    case SlackPolicy::Fixed:
        return "Each range allows a fixed " + std::to_string(slack.fixed_us) + " us of slack" +
               name +
               ", far below what msleep() oversleeps and enough for the hrtimer to "
               "coalesce wakeups.";
    case SlackPolicy::Percent:
        return "Each range allows " + std::to_string(slack.percent) + "% of the sleep as slack" +
               name + ", at least " + std::to_string(slack.floor_us) + " us" +
               (slack.percent == 25 ? ": " + quarter_slack_origin(ctx) + ", far below"
                                    : ", far below") +
               " what msleep() oversleeps.";
    case SlackPolicy::Acpi:
        return "Each range allows 1% of the sleep as slack" + name + ", at least " +
               std::to_string(slack.floor_us) + " us, as acpi_os_sleep() does.";
    }
    return "";
}

// "ak8974_await_drdy(): msleep(AK8974_MEASTIME)": where a site is, for a sentence.
std::string site_name(const FileFix& file, const Finding& f, bool several_files) {
    std::string where = several_files ? base_name(file.file) + ": " : "";
    if (!f.function.empty())
        where += f.function + "(): ";
    std::string call;
    for (char c : f.call)
        if (!std::isspace(static_cast<unsigned char>(c)))
            call += c;
        else if (!call.empty() && call.back() != ' ')
            call += ' ';
    return where + call;
}

// The sites whose new range can outlast the msleep() it replaces at a common HZ, each in a
// sentence: a long sleep at HZ=1000 (msleep(15) is up to 17 ms there on 6.1, and
// usleep_range(15000, 18750) up to 18.75 ms) gets slower, and the mail says so rather than leave
// it for a reviewer to find on their own kernel.
std::string longer_than_msleep(const MessageContext& ctx) {
    std::string out;
    const bool several_files = ctx.files.size() > 1;
    for (const FileFix* f : ctx.files) {
        if (f->slack_us <= 0 || target_name(*ctx.rule, *f) != "usleep_range")
            continue;
        for (const SiteOutcome& s : f->sites) {
            const auto us = s.finding.requested_us();
            if (!s.fixed || s.loop.policy == "iopoll" || !us)
                continue;
            const double range_ms = static_cast<double>(*us + f->slack_us) / 1000.0;
            std::string at;
            double shortest = range_ms;
            for (const auto& [hz, ms] : s.finding.predicted_by_hz)
                if (range_ms > ms) {
                    at += std::string(at.empty() ? "" : " and ") + fmt_ms(ms) +
                          " ms at HZ=" + std::to_string(hz);
                    shortest = std::min(shortest, ms);
                }
            if (at.empty())
                continue;
            out += " " + site_name(*f, s.finding, several_files) + " sleeps up to " + at +
                   ", less than its range's " + fmt_ms(range_ms) +
                   " ms: on such a kernel the new sleep can last up to " +
                   fmt_ms(range_ms - shortest) + " ms longer.";
        }
    }
    return out;
}

// One site's loop, in a sentence: what the fix did with it and the budget before and after.
std::string loop_sentence(const MessageContext& ctx, const FileFix& file, const SiteOutcome& s,
                          bool several_files) {
    const LoopOutcome& o = s.loop;
    const Finding& f = s.finding;
    const std::string name = site_name(file, f, several_files);
    if (f.loop.ends_by != LoopEnd::Count)
        return name + ": " + o.why +
               "; whether a loop around it gives up after a number of "
               "tries, and how much sooner with the shorter sleep, is "
               "for the reviewer to check.";
    const std::string tries =
        f.loop.tries ? std::to_string(*f.loop.tries) + " tries" : f.loop.tries_text + " tries";
    std::string loop = "a " + f.loop.statement + " loop that gives up after " + tries;
    if (f.loop.waits_for)
        loop += " waiting for " + f.loop.waits_for->condition;
    std::string budget;
    if (!f.loop.budget_ms_by_hz.empty() && !o.after_ms_by_hz.empty())
        budget = budget_change(f.loop.budget_ms_by_hz, o.after_ms_by_hz, ctx.hz);
    const std::string label = " (" + model_label(ctx) + ")";
    if (o.policy == "iopoll") {
        std::string out = name + " paces " + loop + ". The loop becomes " + o.helper +
                          "() with a sleep of " + std::to_string(o.sleep_us) +
                          " us between reads and a timeout of " + std::to_string(o.timeout_us) +
                          " us: " + o.timeout_why + ", so it never gives up sooner than it did";
        if (o.timeout_why.rfind("the longest", 0) != 0)
            out = name + " paces " + loop + ". The loop becomes " + o.helper +
                  "() with a sleep of " + std::to_string(o.sleep_us) +
                  " us between reads and a timeout of " + std::to_string(o.timeout_us) + " us (" +
                  o.timeout_why + ")";
        if (!o.poll_sleep.empty())
            out += "; between reads it sleeps " + o.poll_sleep;
        out += ". Its errors are those the loop returned.";
        if (!budget.empty())
            out += " Longest wait before it gives up: " + budget + label + ".";
        return out;
    }
    std::string out = name + " paces " + loop + ": ";
    if (budget.empty())
        out += "with the new sleep the loop's budget changes, by how much is not known (" +
               (f.loop.tries ? std::string("the new sleep was not evaluated")
                             : "its count is not a constant") +
               ").";
    else
        out += "with the new sleep the loop's budget " +
               budget_direction(f.loop.budget_ms_by_hz, o.after_ms_by_hz, ctx.hz) + ": " + budget +
               label + ".";
    if (!o.why.empty())
        out += " It keeps its loop because " + o.why + ".";
    return out;
}

size_t fixed_sites(const MessageContext& ctx) {
    size_t n = 0;
    for (const auto* f : ctx.files)
        for (const auto& s : f->sites)
            n += s.fixed;
    return n;
}

} // namespace

std::string model_label(const MessageContext& ctx) {
    return "sleep model, " + (ctx.hz_label.empty() ? "HZ=" + std::to_string(ctx.hz) : ctx.hz_label);
}

std::string timers_advice(const MessageContext& ctx) {
    if (!ctx.sleep_api || ctx.sleep_api->timers_doc.empty())
        return "";
    const std::string& doc = ctx.sleep_api->timers_doc;
    if (doc.find("delay_sleep_functions") != std::string::npos)
        return doc + " advises usleep_range() where msleep() is not accurate enough, as here, and "
                     "fsleep() when unsure.";
    return doc + " recommends usleep_range() for sleeps of 10 us to 20 ms.";
}

std::string loop_paragraph(const MessageContext& ctx) {
    std::string out;
    const bool several_files = ctx.files.size() > 1;
    for (const auto* f : ctx.files)
        for (const auto& site : f->sites)
            if (site.fixed && !site.loop.policy.empty())
                out += (out.empty() ? "" : "\n\n") + loop_sentence(ctx, *f, site, several_files);
    return out;
}

std::vector<std::pair<std::string, std::string>> message_values(const MessageContext& ctx) {
    std::string files;
    for (size_t i = 0; i < ctx.files.size(); ++i)
        files += (i ? ", " : "") + base_name(ctx.files[i]->file);
    FileFix none;
    const FileFix& first = ctx.files.empty() ? none : *ctx.files.front();
    return {{"callee", callee_list(*ctx.rule)},
            {"target", target_name(*ctx.rule, first)},
            {"threshold_ms", std::to_string(ctx.rule->threshold_ms)},
            {"hz", std::to_string(ctx.hz)},
            {"jiffy_ms", fmt_ms(1000.0 / ctx.hz)},
            {"kernel", std::to_string(ctx.kernel.major) + "." + std::to_string(ctx.kernel.minor)},
            {"count", std::to_string(fixed_sites(ctx))},
            {"files", files},
            {"sites", site_lines(ctx)},
            {"model", model_label(ctx)},
            {"timers_doc", ctx.sleep_api ? ctx.sleep_api->timers_doc : ""},
            {"timers_advice", timers_advice(ctx)},
            {"slack", slack_sentence(ctx) + longer_than_msleep(ctx)},
            {"loops", loop_paragraph(ctx)},
            {"measured", ctx.measured && ctx.report ? describe(*ctx.measured, *ctx.report) : ""}};
}

std::string expand(const std::string& text,
                   const std::vector<std::pair<std::string, std::string>>& values) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '{') {
            size_t close = text.find('}', i);
            if (close != std::string::npos) {
                std::string key = text.substr(i + 1, close - i - 1);
                auto it = std::find_if(values.begin(), values.end(),
                                       [&](const auto& kv) { return kv.first == key; });
                if (it != values.end()) {
                    out += it->second;
                    i = close;
                    continue;
                }
            }
        }
        out += text[i];
    }
    return out;
}

std::string summary_from_template(const MessageContext& ctx) {
    const std::string& t = ctx.rule->subject_template;
    return expand(t.empty() ? kDefaultSubject : t, message_values(ctx));
}

std::string full_summary(const std::string& prefix, const std::string& summary, size_t max,
                         const std::string& suffix) {
    // A prefix that carries its own separator ("Input: xpad -", "hwmon: (lm90)", "ASoC:
    // codecs: wm8904:") takes a space; one that ends in a tag ("tpm: tpm_nsc") a colon too.
    std::string head;
    if (!prefix.empty()) {
        const char last = prefix.back();
        head = prefix + (last == ':' || last == '-' || last == ')' ? " " : ": ");
    }
    std::string s = summary;
    while (head.size() + s.size() + suffix.size() > max) {
        auto space = s.rfind(' ');
        if (space == std::string::npos || space == 0) {
            size_t room = head.size() + suffix.size() < max ? max - head.size() - suffix.size() : 0;
            s.resize(std::min(s.size(), room));
            break;
        }
        s.resize(space);
    }
    return head + s + suffix;
}

std::string commit_body(const MessageContext& ctx, const std::string& signoff) {
    std::string t = ctx.rule->body_template.empty() ? kDefaultBody : ctx.rule->body_template;
    // A budget change is said whatever the template: at its end when it has no place for it.
    if (t.find("{loops}") == std::string::npos)
        t += "\n\n{loops}";
    std::string body = wrap_body(expand(t, message_values(ctx)), 75);
    while (!body.empty() && body.back() == '\n')
        body.pop_back();
    return body + "\n\nSigned-off-by: " + signoff + "\n";
}

} // namespace ksweep::series
