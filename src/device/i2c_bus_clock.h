// Time as the device models see it. The daemon uses the monotonic clock; tests drive a manual
// clock so latencies and timing requirements are checked without sleeping.
#pragma once

#include <chrono>

namespace ksweep::device {

using Duration = std::chrono::nanoseconds;
using TimePoint = std::chrono::time_point<std::chrono::steady_clock, Duration>;

class Clock {
  public:
    virtual ~Clock() = default;
    virtual TimePoint now() const = 0;
    // Blocks (or, for a manual clock, advances) until `when`.
    virtual void sleep_until(TimePoint when) = 0;
};

// CLOCK_MONOTONIC (std::chrono::steady_clock on Linux).
class MonotonicClock final : public Clock {
  public:
    TimePoint now() const override { return std::chrono::steady_clock::now(); }
    void sleep_until(TimePoint when) override;
};

// A clock that moves only when told to.
class ManualClock final : public Clock {
  public:
    TimePoint now() const override { return now_; }
    void sleep_until(TimePoint when) override {
        if (when > now_)
            now_ = when;
    }
    void advance(Duration d) { now_ += d; }

  private:
    TimePoint now_{};
};

} // namespace ksweep::device
