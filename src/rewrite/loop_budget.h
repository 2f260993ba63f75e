// A count-ended loop's budget after the fix, and the words for its change: the longest the loop
// sleeps before it gives up, today (core/loop.h, from the sleep model) and after the rewrite
// (usleep_range()'s maximum, fsleep() and a subsystem's helper as the tree's own code runs them,
// an iopoll helper's timeout), at HZ 100, 250 and 1000.
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "rewrite/sleep_helpers.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ksweep {

class TreeSleeps;

using ByHz = std::vector<std::pair<int, double>>;

// The HZ values every budget is given at.
const std::vector<int>& budget_hz();

// How long one fixed sleep lasts at most at `hz`, in ms: usleep_range(us, us + slack)'s
// maximum, or fsleep()/the helper evaluated in the tree (nullopt without `sleeps`, or when the
// tree's function could not be run).
std::optional<double> fixed_sleep_ms(const Finding& f, Target target, long long slack_us,
                                     const std::optional<SleepHelper>& helper, TreeSleeps* sleeps,
                                     int hz);

// The loop's budget once its sleep is fixed so: tries x the fixed sleep, at each HZ (empty when
// the count or a fixed sleep is not known).
ByHz budget_after_keep(const Finding& f, Target target, long long slack_us,
                       const std::optional<SleepHelper>& helper, TreeSleeps* sleeps);

// An iopoll helper's budget: it gives up once `timeout_us` has passed, after at most one more
// sleep (usleep_range((sleep_us >> 2) + 1, sleep_us) as the tree's iopoll.h runs it).
ByHz budget_after_iopoll(long long sleep_us, long long timeout_us, TreeSleeps* sleeps);

// "24 ms -> 7.5 ms at HZ=250 (HZ=100: 60 -> 7.5, HZ=1000: 10 -> 7.5)": before and after, the
// tree's HZ first.
std::string budget_change(const ByHz& before, const ByHz& after, int tree_hz);

// Which way the budget goes at `hz`: "falls", "grows" or "stays".
std::string budget_direction(const ByHz& before, const ByHz& after, int hz);

// The budget at one HZ, or nullopt.
std::optional<double> at_hz(const ByHz& by_hz, int hz);

} // namespace ksweep
