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

} // namespace

long long msleep_jiffies(long long ms, int hz, KernelVersion kernel) {
    long long timeout = msecs_to_jiffies(ms, hz);
    if (!kernel.at_least(6, 12))
        timeout += 1;
    return bucket_expiry(timeout);
}

double predicted_msleep_ms(long long ms, int hz, KernelVersion kernel) {
    return static_cast<double>(msleep_jiffies(ms, hz, kernel)) * 1000.0 / hz;
}

} // namespace ksweep
