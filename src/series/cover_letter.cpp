#include "series/cover_letter.h"

#include "rewrite/loop_budget.h"
#include "series/mail.h"
#include "series/text_wrap.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace ksweep::series {

namespace {

std::string listed(const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i)
        out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    return out;
}

std::string range_text(double lo, double hi) {
    auto num = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g", v);
        return std::string(buf);
    };
    return lo == hi ? num(lo) + " ms" : num(lo) + " to " + num(hi) + " ms";
}

// The sleeps that pace loops giving up after a number of tries: what became of each loop and
// its budget at the tree's HZ, one item per site ("" when there is none).
std::string loop_summary(const std::vector<CoverPatch>& patches, const MessageContext& all) {
    size_t iopoll = 0, keep = 0, unknown = 0;
    std::string items;
    for (const auto& p : patches)
        for (const auto* f : p.files)
            for (const auto& s : f->sites) {
                const LoopOutcome& o = s.loop;
                if (!s.fixed || o.policy.empty())
                    continue;
                const Finding& fd = s.finding;
                std::string item =
                    "- " + f->file + (fd.function.empty() ? "" : ", " + fd.function + "()") + ": ";
                if (fd.loop.ends_by != LoopEnd::Count) {
                    ++unknown;
                    item += "its loop, if any, was not analysed";
                } else {
                    item += fd.loop.statement + " loop of " +
                            (fd.loop.tries ? std::to_string(*fd.loop.tries) : fd.loop.tries_text) +
                            " tries";
                    if (o.policy == "iopoll") {
                        ++iopoll;
                        item += " -> " + o.helper + "(), timeout " + std::to_string(o.timeout_us) +
                                " us (" + o.timeout_why + ")";
                    } else {
                        ++keep;
                        item += " kept";
                    }
                    if (!fd.loop.budget_ms_by_hz.empty() && !o.after_ms_by_hz.empty())
                        item += ", budget " +
                                budget_change(fd.loop.budget_ms_by_hz, o.after_ms_by_hz, all.hz);
                }
                items += item + "\n";
            }
    if (items.empty())
        return "";
    auto n = [](size_t k, const char* one, const char* many) {
        return std::to_string(k) + " " + (k == 1 ? one : many);
    };
    std::string text = n(iopoll + keep + unknown, "sleep", "sleeps") +
                       " here may pace a loop that gives up after a number of tries, a driver's "
                       "timeout: ";
    std::vector<std::string> parts;
    if (iopoll)
        parts.push_back(n(iopoll, "loop becomes", "loops become") + " an iopoll helper");
    if (keep)
        parts.push_back(n(keep, "loop keeps", "loops keep") +
                        " its shorter sleep, and with it a shorter budget");
    if (unknown)
        parts.push_back(n(unknown, "loop was", "loops were") + " not analysed");
    text += listed(parts) +
            ". Each patch gives the budget before and after at HZ 100, 250 and "
            "1000 (" +
            model_label(all) + "):\n\n" + items;
    return text;
}

} // namespace

std::string model_first_line(const Rule& rule, const std::vector<CoverPatch>& patches,
                             const MessageContext& all) {
    const std::string callee = expand("{callee}", message_values(all));
    double asked_lo = 0, asked_hi = 0, slept_lo = 0, slept_hi = 0;
    bool any = false;
    for (const auto& p : patches)
        for (const auto* f : p.files)
            for (const auto& site : f->sites) {
                if (!site.fixed || !site.finding.value || site.finding.predicted_sleep_ms <= 0)
                    continue;
                const double asked = *site.finding.requested_ms();
                const double slept = site.finding.predicted_sleep_ms;
                asked_lo = any ? std::min(asked_lo, asked) : asked;
                asked_hi = any ? std::max(asked_hi, asked) : asked;
                slept_lo = any ? std::min(slept_lo, slept) : slept;
                slept_hi = any ? std::max(slept_hi, slept) : slept;
                any = true;
            }
    const std::string label = " (" + model_label(all) + ").";
    if (!any)
        return callee + "() below " + std::to_string(rule.threshold_ms) +
               " ms sleeps longer than asked" + label;
    return "The " + callee + "() calls this series converts ask for " +
           range_text(asked_lo, asked_hi) + " and sleep for up to " +
           range_text(slept_lo, slept_hi) + label;
}

std::string cover_blurb(const Rule& rule, const std::vector<CoverPatch>& patches,
                        const MessageContext& all, const ValidationFigures& report,
                        const CoverPlace& place) {
    size_t sites = 0;
    for (const auto& p : patches)
        for (const auto* f : p.files)
            for (const auto& s : f->sites)
                sites += s.fixed;
    std::string target = expand("{target}", message_values(all));
    std::string jiffy = expand("{jiffy_ms}", message_values(all));
    // The first line is the sleep model's for the tree's HZ (rule.summary is a fixed text).
    std::string text = model_first_line(rule, patches, all) + "\n\n";
    text += "This series converts " + std::to_string(sites) + " call site" +
            (sites == 1 ? "" : "s") + " in " + std::to_string(patches.size()) + " driver" +
            (patches.size() == 1 ? "" : "s") + " to " + target + "(), one patch per driver. " +
            "At HZ=" + std::to_string(all.hz) + " a jiffy is " + jiffy +
            " ms and msleep() rounds every sleep up to whole jiffies and then to the timer "
            "wheel's granularity, so the sleeps below " +
            std::to_string(rule.threshold_ms) +
            " ms here last several times what they ask for; each patch lists its call sites "
            "with the real sleep predicted for them.";
    if (const std::string advice = timers_advice(all); !advice.empty())
        text += " " + advice;
    text += "\n\n";
    if (const std::string loops = loop_summary(patches, all); !loops.empty())
        text += loops + "\n";
    if (!place.entry.empty())
        text += "The patches are for " +
                (place.tree.empty() ? std::string("the maintainers") : place.tree) + " (" +
                place.entry +
                " in MAINTAINERS); the same change for other subsystems goes to "
                "their maintainers separately.\n\n";
    if (place.tree_series.size() > 1)
        text += "That tree has more patches than one posting should carry, so they come as " +
                std::to_string(place.tree_series.size()) + " series of at most " +
                std::to_string(place.max_patches) + " (" + listed(place.tree_series) +
                "); this is " + place.name + ".\n\n";
    if (!place.changes.empty())
        text += place.changes + "\n";
    if (!report.patches.empty()) {
        text += "Validation by " + report_label(report) +
                " (L1 git am, L2 checkpatch.pl --strict, L3 module build, L4 QEMU boot with an "
                "emulated device): " +
                (report.passed ? "every patch passed." : "NOT every patch passed.") + "\n\n";
        for (const auto& p : patches) {
            std::vector<std::string> names;
            for (const auto* f : p.files)
                names.push_back(f->file);
            if (const auto* m = report.for_files(names)) {
                text += "- " + p.subject.substr(0, p.subject.rfind(": ")) + ": " +
                        level_summary(*m) + ".\n";
                if (m->measured)
                    text += "  " + describe(*m, report) + "\n";
            }
        }
    } else {
        text += "No runtime measurements accompany this posting.\n";
    }
    return wrap_body(text, 75);
}

std::string cover_letter(const CoverMail& m) {
    std::string mail = "From " + m.last_commit + " Mon Sep 17 00:00:00 2001\n";
    if (!m.message_id.empty())
        mail += "Message-Id: <" + m.message_id + ">\n";
    // git leaves the cover letter's headers unencoded (its pretty context for the cover
    // letter does not ask for encoded email headers); match it.
    mail += from_header(m.author_name, m.author_email, false);
    mail += "Date: " + rfc2822_date(m.date, 0) + "\n";
    std::string head = "Subject: " + subject_prefix(0, m.shortlog.size(), m.reroll) + " ";
    mail += head + encoded_subject(head, m.subject, false) + "\n";
    mail += mime_headers_for(m.subject + m.blurb + m.author_name);
    mail += address_header("To", m.to) + address_header("Cc", m.cc) + "\n";
    mail += m.blurb + "\n";
    // git shortlog as format-patch --cover-letter prints it: wrapped at 72, indents 2 and 4.
    mail += m.author_name + " (" + std::to_string(m.shortlog.size()) + "):\n";
    for (const auto& s : m.shortlog)
        mail += git_wrap(s, 2, 4, 72) + "\n";
    mail += "\n" + m.diffstat + "\n";
    mail += "\nbase-commit: " + m.base + "\n";
    mail += "-- \n" + m.signature + "\n\n";
    return mail;
}

std::string changes_since(const IndexSeries& previous, const std::vector<IndexPatch>& now,
                          const std::string& base, int version) {
    std::map<std::string, const IndexPatch*> before;
    for (const auto& p : previous.patches)
        before[p.key] = &p;
    std::vector<std::string> lines;
    for (const auto& p : now) {
        auto it = before.find(p.key);
        if (it == before.end()) {
            lines.push_back("- New: " + p.subject);
            continue;
        }
        if (it->second->subject != p.subject)
            lines.push_back("- " + p.subject + ": subject was \"" + it->second->subject + "\"");
        else if (it->second->digest != p.digest)
            lines.push_back("- " + p.subject + ": changed");
        before.erase(it);
    }
    for (const auto& p : previous.patches)
        if (before.count(p.key))
            lines.push_back("- Dropped " + p.subject +
                            ": its sites are gone from the tree (applied, or the code changed)");
    if (!previous.base.empty() && previous.base != base)
        lines.push_back("- Rebased onto " + base.substr(0, 12) + " (v" +
                        std::to_string(previous.version) + " was on " +
                        previous.base.substr(0, 12) + ")");
    if (lines.empty())
        lines.push_back("- No change to the patches");
    std::string out = "Changes in v" + std::to_string(version) + ":\n";
    for (const auto& l : lines)
        out += l + "\n";
    return out;
}

} // namespace ksweep::series
