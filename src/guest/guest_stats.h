// The per-extend summary the guest benchmark reports: median, min, max, p95, total.
#pragma once

#include "guest/guest_output.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ksweep::guest {

struct ExtendSummary {
    size_t count = 0;
    double median_us = 0, min_us = 0, max_us = 0, p95_us = 0;
    double total_ms = 0;
};

// Over the successful samples only (a failed extend's time says nothing about the driver).
// p95 is the nearest-rank percentile; the median of an even count is the mean of the middle two.
ExtendSummary summarize(const std::vector<ExtendSample>& samples);

// "n=200 median 1234.5 us  min ...  total 250.1 ms" on one line.
std::string format_summary(const ExtendSummary& summary);

} // namespace ksweep::guest
