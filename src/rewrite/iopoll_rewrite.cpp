#include "rewrite/iopoll_rewrite.h"

#include "rewrite/kernel_style.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace ksweep {

namespace {

bool is_decimal(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

std::string times(const std::string& a, const std::string& b) {
    auto wrap = [](const std::string& e) {
        return needs_parens_before_multiply(e) ? "(" + e + ")" : e;
    };
    return wrap(a) + " * " + wrap(b);
}

// The sleep between two tries in microseconds, as the source can say it.
std::string sleep_text(const Finding& f) {
    if (f.resolution == Resolution::Literal && is_decimal(f.argument))
        return std::to_string(*f.requested_us());
    if (f.unit == Unit::Microseconds)
        return f.argument;
    return times(f.argument, "USEC_PER_MSEC");
}

// Where the line holding `offset` ends (its '\n', or the end of the text).
size_t line_end(const std::string& text, size_t offset) {
    const size_t nl = text.find('\n', offset);
    return nl == std::string::npos ? text.size() : nl;
}

bool blank(std::string_view s) {
    return std::all_of(s.begin(), s.end(),
                       [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

constexpr long long kMaxPollSleepUs = 20000;

const char* const kReadlFamily[] = {"readb",         "readw",         "readl",
                                    "readq",         "readb_relaxed", "readw_relaxed",
                                    "readl_relaxed", "readq_relaxed"};

} // namespace

IopollPlan plan_iopoll(const Rule& rule, const Finding& f, const std::string& text, int tree_hz,
                       const TreeDefines& defines) {
    IopollPlan plan;
    const LoopInfo& loop = f.loop;
    if (!loop.iopoll) {
        plan.why_not = loop.not_iopoll.empty() ? "its loop has no iopoll shape" : loop.not_iopoll;
        return plan;
    }
    const IopollShape& s = *loop.iopoll;
    if (!loop.tries || loop.budget_ms_by_hz.empty() || !f.requested_us()) {
        plan.why_not = "its budget is not known";
        return plan;
    }
    if (f.in_macro_body) {
        plan.why_not = "its sleep is spelled in a #define";
        return plan;
    }
    const unsigned start = line_start(text, s.loop_begin);
    if (s.loop_end > text.size() ||
        !blank(std::string_view(text).substr(start, s.loop_begin - start))) {
        plan.why_not = "its loop does not start its line";
        return plan;
    }
    const std::string indent = text.substr(start, s.loop_begin - start);
    const unsigned column = column_at(text, s.loop_begin);
    const bool tabs = line_uses_tabs(text, s.loop_begin);
    const std::string step = tabs ? "\t" : "        ";

    IopollRewrite r;
    r.sleep_us = *f.requested_us();
    // read_poll_timeout()'s kernel-doc: sleep_us "should be less than ~20ms since usleep_range
    // is used"; a longer sleep between tries is a different loop.
    if (r.sleep_us > kMaxPollSleepUs) {
        plan.why_not = "its sleep of " + f.value_text() +
                       " is above the ~20 ms read_poll_timeout() sleeps with usleep_range()";
        return plan;
    }
    const std::string sleep = sleep_text(f);
    // The timeout: never sooner than today at any HZ, unless the rule says otherwise.
    double budget_ms = 0;
    std::string timeout;
    switch (rule.loops.timeout) {
    case IopollTimeout::Longest: {
        int at = 0;
        for (const auto& [hz, ms] : loop.budget_ms_by_hz)
            if (ms > budget_ms)
                budget_ms = ms, at = hz;
        r.timeout_us = std::llround(budget_ms * 1000);
        timeout = std::to_string(r.timeout_us);
        r.timeout_why = "the longest the loop waits today, at HZ=" + std::to_string(at);
        break;
    }
    case IopollTimeout::TreeHz:
        budget_ms = static_cast<double>(*loop.tries) * f.predicted_sleep_ms;
        r.timeout_us = std::llround(budget_ms * 1000);
        timeout = std::to_string(r.timeout_us);
        r.timeout_why =
            "the longest the loop waits today at the tree's HZ=" + std::to_string(tree_hz);
        break;
    case IopollTimeout::Nominal:
        r.timeout_us = *loop.tries * r.sleep_us;
        timeout = is_decimal(loop.tries_text) && is_decimal(sleep) ? std::to_string(r.timeout_us)
                                                                   : times(loop.tries_text, sleep);
        r.timeout_why = "the loop's " + loop.tries_text + " tries of " + f.value_text();
        break;
    }

    auto has = [&](const std::string& header, const std::string& macro) {
        return !defines || defines(header, macro);
    };
    if (!has("include/linux/iopoll.h", "read_poll_timeout")) {
        plan.why_not = "the tree has no read_poll_timeout() (include/linux/iopoll.h, v5.8 on)";
        return plan;
    }
    const std::string first = s.sleep_first ? "true" : "false";
    CallText call;
    std::string statement; // what replaces the loop, from its first column
    const std::string return_on_success =
        "\n" + indent + step + "return " + (s.status.empty() ? s.success : s.status) + ";";
    if (!s.status.empty() && !s.sleep_first &&
        has("include/linux/regmap.h", "regmap_read_poll_timeout")) {
        // regmap_read() as regmap_read_poll_timeout() does it: a read error ends the poll and
        // is returned; -ETIMEDOUT goes on to the loop's own timeout path.
        call = {"regmap_read_poll_timeout",
                {{s.args[0]}, {s.args[1]}, {s.value}, {s.condition}, {sleep}, {timeout}}};
        const std::string head = s.status + " = ";
        statement = head + layout_call(call, column + static_cast<unsigned>(head.size()), 1, tabs) +
                    ";\n" + indent + "if (" + s.status + " != -ETIMEDOUT)" + return_on_success;
    } else {
        if (!s.status.empty()) {
            // Sleeping first: read_poll_timeout() of regmap_read itself, whose status ends the
            // poll as the loop's `return ret` did.
            call = {"read_poll_timeout",
                    {{"regmap_read"},
                     {s.status},
                     {s.status + " || (" + s.condition + ")"},
                     {sleep},
                     {timeout},
                     {first},
                     {s.args[0]},
                     {s.args[1]},
                     {"&" + s.value}}};
        } else if (!s.sleep_first && s.args.size() == 1 &&
                   std::find(std::begin(kReadlFamily), std::end(kReadlFamily), s.op) !=
                       std::end(kReadlFamily) &&
                   has("include/linux/iopoll.h", s.op + "_poll_timeout")) {
            call = {s.op + "_poll_timeout",
                    {{s.args[0]}, {s.value}, {s.condition}, {sleep}, {timeout}}};
        } else if (!s.sleep_first && s.args.size() == 1 &&
                   has("include/linux/iopoll.h", "readx_poll_timeout")) {
            call = {"readx_poll_timeout",
                    {{s.op}, {s.args[0]}, {s.value}, {s.condition}, {sleep}, {timeout}}};
        } else {
            call = {"read_poll_timeout",
                    {{s.op}, {s.value}, {s.condition}, {sleep}, {timeout}, {first}}};
            for (const std::string& a : s.args)
                call.args.push_back({a});
        }
        if (s.exit == IopollShape::Exit::Return)
            statement = "if (!" + layout_call(call, column + 5, 1, tabs) + ")" + return_on_success;
        r.needs_iopoll_h = true;
    }
    r.helper = call.callee;
    r.call = flat_call(call);

    for (const auto& [b, e] : s.removals)
        r.edits.push_back(Edit{b, e, "", -1});
    // The loop is a statement of the block the declaration opens: it has the loop's indent.
    if (!s.declaration.empty())
        r.edits.push_back(Edit{s.declare_at, s.declare_at,
                               indent + s.declaration + "\n" + (s.declaration_alone ? "\n" : ""),
                               -1});
    if (s.exit == IopollShape::Exit::Return) {
        r.edits.push_back(Edit{s.loop_begin, s.loop_end, statement, -1});
    } else {
        // The loop's lines go, and the blank lines after it; the test after it becomes the poll.
        size_t next = line_end(text, s.loop_end);
        while (next < text.size()) {
            const size_t from = next + 1, to = line_end(text, from);
            if (!blank(std::string_view(text).substr(from, to - from)))
                break;
            next = to;
        }
        const unsigned next_line = static_cast<unsigned>(std::min(next + 1, text.size()));
        if (s.test_begin < next_line || s.test_begin > line_end(text, next_line)) {
            plan.why_not = "the test after the loop is not on the line after it";
            return plan;
        }
        if (!blank(std::string_view(text).substr(s.loop_end,
                                                 line_end(text, s.loop_end) - s.loop_end))) {
            plan.why_not = "something follows the loop on its last line";
            return plan;
        }
        r.edits.push_back(Edit{start, next_line, "", -1});
        const std::string tail = text.substr(s.test_end, line_end(text, s.test_end) - s.test_end);
        r.edits.push_back(
            Edit{s.test_begin, s.test_end,
                 layout_call(call, column_at(text, s.test_begin), width_from(tail, 0), tabs), -1});
    }
    std::sort(r.edits.begin(), r.edits.end(),
              [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
    plan.rewrite = std::move(r);
    return plan;
}

std::optional<Edit> iopoll_include(const std::string& text) {
    // The <linux/...> includes: the new one goes before the first that sorts after it when they
    // are sorted, else after the last of them.
    const std::string wanted = "linux/iopoll.h";
    std::optional<unsigned> before, after_last;
    std::string previous;
    bool sorted = true;
    size_t at = 0;
    while (at < text.size()) {
        const size_t end = line_end(text, at);
        const std::string_view line(text.data() + at, end - at);
        const size_t open = line.find('<'), close = line.find('>');
        if (line.rfind("#include", 0) == 0 && open != std::string_view::npos &&
            close != std::string_view::npos && close > open) {
            const std::string name(line.substr(open + 1, close - open - 1));
            if (name == wanted)
                return std::nullopt;
            if (name.rfind("linux/", 0) == 0) {
                sorted = sorted && previous <= name;
                previous = name;
                if (!before && name > wanted)
                    before = static_cast<unsigned>(at);
                after_last = static_cast<unsigned>(std::min(end + 1, text.size()));
            }
        }
        at = end + 1;
    }
    if (!before && !after_last)
        return std::nullopt;
    if (!sorted)
        before.reset();
    return Edit{before ? *before : *after_last, before ? *before : *after_last,
                "#include <" + wanted + ">\n", -1};
}

} // namespace ksweep
