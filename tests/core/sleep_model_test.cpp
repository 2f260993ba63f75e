#include "core/sleep_model.h"

#include <gtest/gtest.h>

using ksweep::CallForm;
using ksweep::KernelVersion;

namespace {
const KernelVersion v6_1{6, 1, 192};
const KernelVersion v6_12{6, 12, 0};

// msleep()'s form: milliseconds, msleep's rounding, the extra jiffy before v6.12.
long long msleep_jiffies(long long ms, int hz, KernelVersion kernel) {
    return ksweep::form_sleep_jiffies(CallForm{"msleep"}, ms, hz,
                                      ksweep::msleep_extra_jiffy(kernel));
}
double predicted_msleep_ms(long long ms, int hz, KernelVersion kernel) {
    return ksweep::predicted_sleep_ms(CallForm{"msleep"}, ms, hz,
                                      ksweep::msleep_extra_jiffy(kernel));
}
} // namespace

// REFERENCE §1: at HZ=250 on 6.1, msleep(1) and msleep(2) take about 12 ms, msleep(10) 20 ms.
TEST(SleepModel, SmallSleepsAtHz250On6_1) {
    EXPECT_EQ(msleep_jiffies(1, 250, v6_1), 3);
    EXPECT_DOUBLE_EQ(predicted_msleep_ms(1, 250, v6_1), 12.0);
    EXPECT_DOUBLE_EQ(predicted_msleep_ms(2, 250, v6_1), 12.0);
    EXPECT_DOUBLE_EQ(predicted_msleep_ms(10, 250, v6_1), 20.0);
}

// v6.12 dropped the extra jiffy: seed 002 measured msleep(5) at about 11.9 ms on HZ=250.
TEST(SleepModel, V6_12DropsTheExtraJiffy) {
    EXPECT_DOUBLE_EQ(predicted_msleep_ms(5, 250, v6_12), 12.0);
    EXPECT_DOUBLE_EQ(predicted_msleep_ms(5, 250, v6_1), 16.0);
}

TEST(SleepModel, Hz1000) {
    EXPECT_DOUBLE_EQ(predicted_msleep_ms(1, 1000, v6_1), 3.0);
    EXPECT_DOUBLE_EQ(predicted_msleep_ms(19, 1000, v6_1), 21.0);
}

// Past level 0 (63 jiffies) the wheel rounds up to 8 jiffies: 300 ms at HZ=250 is 75+1
// jiffies, queued at the next multiple of 8 after that.
TEST(SleepModel, Level1Granularity) {
    EXPECT_EQ(msleep_jiffies(300, 250, v6_1), 80);
    EXPECT_EQ(msleep_jiffies(20, 250, v6_1), 7);
}

TEST(SleepModel, ZeroStillSleeps) {
    EXPECT_EQ(msleep_jiffies(0, 250, v6_1), 2);
}
