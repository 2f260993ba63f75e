#include "rewrite/loop_budget.h"

#include "core/strings.h"
#include "rewrite/sleep_eval.h"

namespace ksweep {

const std::vector<int>& budget_hz() {
    static const std::vector<int> hz = {100, 250, 1000};
    return hz;
}

std::optional<double> at_hz(const ByHz& by_hz, int hz) {
    for (const auto& [at, ms] : by_hz)
        if (at == hz)
            return ms;
    return std::nullopt;
}

std::optional<double> fixed_sleep_ms(const Finding& f, Target target, long long slack_us,
                                     const std::optional<SleepHelper>& helper, TreeSleeps* sleeps,
                                     int hz) {
    const auto us = f.requested_us();
    if (!us)
        return std::nullopt;
    if (helper && f.value && f.unit == Unit::Milliseconds) {
        if (!sleeps)
            return std::nullopt;
        const std::string header = helper->defined_at.substr(0, helper->defined_at.rfind(':'));
        const SleepEval e = sleeps->helper(header, helper->name, *f.value, hz);
        return e.step ? e.step->max_ms(hz, sleeps->extra_jiffy()) : std::nullopt;
    }
    if (target == Target::Fsleep) {
        if (!sleeps)
            return std::nullopt;
        const SleepEval e = sleeps->fsleep(*us, hz);
        return e.step ? e.step->max_ms(hz, sleeps->extra_jiffy()) : std::nullopt;
    }
    return static_cast<double>(*us + slack_us) / 1000.0;
}

ByHz budget_after_keep(const Finding& f, Target target, long long slack_us,
                       const std::optional<SleepHelper>& helper, TreeSleeps* sleeps) {
    ByHz out;
    if (!f.loop.tries)
        return out;
    for (int hz : budget_hz()) {
        const auto ms = fixed_sleep_ms(f, target, slack_us, helper, sleeps, hz);
        if (!ms)
            return {};
        out.emplace_back(hz, static_cast<double>(*f.loop.tries) * *ms);
    }
    return out;
}

ByHz budget_after_iopoll(long long sleep_us, long long timeout_us, TreeSleeps* sleeps) {
    ByHz out;
    for (int hz : budget_hz()) {
        // One more sleep of the poll's own: what the tree's read_poll_timeout() sleeps, else
        // its documented maximum, sleep_us.
        double last = static_cast<double>(sleep_us) / 1000.0;
        if (sleeps) {
            const SleepEval e = sleeps->iopoll_sleep(sleep_us, hz);
            if (e.step)
                if (auto ms = e.step->max_ms(hz, sleeps->extra_jiffy()))
                    last = *ms;
        }
        out.emplace_back(hz, static_cast<double>(timeout_us) / 1000.0 + last);
    }
    return out;
}

std::string budget_direction(const ByHz& before, const ByHz& after, int hz) {
    const auto b = at_hz(before, hz), a = at_hz(after, hz);
    if (!a || !b || *a == *b)
        return "stays";
    return *a < *b ? "falls" : "grows";
}

std::string budget_change(const ByHz& before, const ByHz& after, int tree_hz) {
    auto ms = [](std::optional<double> v) { return v ? format_ms(*v) : std::string("?"); };
    std::string out = ms(at_hz(before, tree_hz)) + " ms -> " + ms(at_hz(after, tree_hz)) +
                      " ms at HZ=" + std::to_string(tree_hz);
    std::string others;
    for (int hz : budget_hz())
        if (hz != tree_hz)
            others += std::string(others.empty() ? "" : ", ") + "HZ=" + std::to_string(hz) + ": " +
                      ms(at_hz(before, hz)) + " -> " + ms(at_hz(after, hz));
    return others.empty() ? out : out + " (" + others + ")";
}

} // namespace ksweep
