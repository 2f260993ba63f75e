#include "core/sleep_model.h"

namespace ksweep {

namespace {

// kernel/time/timer.c: 8 levels of 64 buckets, each level 8 times coarser than the one below.
constexpr int kLevelClockShift = 3;
constexpr long long kLevelSize = 64;

long long level_start(int level) {
    return (kLevelSize - 1) << ((level - 1) * kLevelClockShift);
}

// calc_wheel_index(): which level a timer lands on and the jiffy its bucket expires at.
long long bucket_expiry(long long delta) {
    int level = 0;
    while (level < 7 && delta >= level_start(level + 1))
        ++level;
    int shift = level * kLevelClockShift;
    return ((delta >> shift) + 1) << shift;
}

// msecs_to_jiffies() for HZ that divide 1000 and those that do not: rounds up.
long long msecs_to_jiffies(long long ms, int hz) {
    return (ms * hz + 999) / 1000;
}

long long usecs_to_jiffies(long long us, int hz) {
    return (us * hz + 999999) / 1000000;
}

double jiffies_to_ms(long long jiffies, int hz) {
    return static_cast<double>(jiffies) * 1000.0 / hz;
}

} // namespace

bool msleep_extra_jiffy(KernelVersion kernel) {
    return !kernel.at_least(6, 12);
}

long long form_sleep_jiffies(const CallForm& form, long long value, int hz, bool extra_jiffy) {
    const long long jiffies =
        form.unit == Unit::Microseconds ? usecs_to_jiffies(value, hz) : msecs_to_jiffies(value, hz);
    if (form.sleep == SleepModel::Msleep)
        return bucket_expiry(jiffies + (extra_jiffy ? 1 : 0));
    // schedule_timeout(0) returns at once; a timeout of N jiffies is a timer N jiffies out.
    return jiffies == 0 ? 0 : bucket_expiry(jiffies);
}

double predicted_sleep_ms(const CallForm& form, long long value, int hz, bool extra_jiffy) {
    return jiffies_to_ms(form_sleep_jiffies(form, value, hz, extra_jiffy), hz);
}

} // namespace ksweep
