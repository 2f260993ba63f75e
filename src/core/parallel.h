// The one worker pool: `jobs` threads (the caller's among them) take indices 0..count-1 in
// order, each once. Scanning files and fixing them both fan out this way.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ksweep {

template <typename Work> void parallel_for(std::size_t count, int jobs, Work&& work) {
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i; (i = next++) < count;)
            work(i);
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < std::max(1, jobs); ++t)
        threads.emplace_back(worker);
    worker();
    for (auto& t : threads)
        t.join();
}

} // namespace ksweep
