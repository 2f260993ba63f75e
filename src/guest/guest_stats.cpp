#include "guest/guest_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace ksweep::guest {

ExtendSummary summarize(const std::vector<ExtendSample>& samples) {
    std::vector<std::int64_t> ns;
    for (const auto& s : samples)
        if (s.rc == 0)
            ns.push_back(s.ns);
    ExtendSummary summary;
    summary.count = ns.size();
    if (ns.empty())
        return summary;
    std::sort(ns.begin(), ns.end());
    auto us = [](double v) { return v / 1000.0; };
    size_t n = ns.size();
    summary.min_us = us(ns.front());
    summary.max_us = us(ns.back());
    summary.median_us = n % 2 ? us(ns[n / 2]) : us((ns[n / 2 - 1] + ns[n / 2]) / 2.0);
    size_t rank = static_cast<size_t>(std::ceil(0.95 * n)); // 1-based nearest rank
    summary.p95_us = us(ns[std::max<size_t>(rank, 1) - 1]);
    summary.total_ms = std::accumulate(ns.begin(), ns.end(), 0.0) / 1e6;
    return summary;
}

std::string format_summary(const ExtendSummary& s) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "n=%zu  median %.1f us  min %.1f us  max %.1f us  p95 %.1f us  total %.1f ms",
                  s.count, s.median_us, s.min_us, s.max_us, s.p95_us, s.total_ms);
    return line;
}

} // namespace ksweep::guest
