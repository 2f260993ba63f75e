// How long a jiffy-based sleep really lasts: the one place that knows the timer wheel.
//
// msleep() sleeps msecs_to_jiffies(ms) jiffies, plus one historical extra jiffy before v6.12
// (commit 4381b895f544); schedule_timeout() of a conversion sleeps the jiffies it returns. The
// timer wheel then queues the timer in the bucket after its expiry (calc_index() in
// kernel/time/timer.c adds one unit of the level's granularity). The result is the upper bound
// of the sleep when the call is made right at a tick.
#pragma once

#include "core/rule.h"

namespace ksweep {

struct KernelVersion {
    int major = 0, minor = 0, sublevel = 0;
    bool at_least(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
};

// How a call of a form sleeps, at most, for `value` in the form's unit: msleep's model (with the
// extra jiffy when `extra_jiffy`), or schedule_timeout() of the jiffies its conversion call
// returns (msecs_to_jiffies and usecs_to_jiffies round up), each then rounded up by the wheel.
long long form_sleep_jiffies(const CallForm& form, long long value, int hz, bool extra_jiffy);
double predicted_sleep_ms(const CallForm& form, long long value, int hz, bool extra_jiffy);

// Whether a tree of this version still adds msleep()'s historical extra jiffy (before v6.12,
// 4381b895f544); the tree's own msleep() body says better when it can be read.
bool msleep_extra_jiffy(KernelVersion kernel);

} // namespace ksweep
