// Progress for long subcommands: a live line rewritten in place on a terminal, plain lines
// (at most one per 10 %) when stderr is a file or pipe, nothing when disabled.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <string>

namespace ksweep::cli {

class Progress {
  public:
    enum class Mode { Off, Live, Lines };

    // Live on a terminal, Off otherwise: what commands that print results want by default.
    static Mode mode_for_stderr();

    Progress(std::string label, Mode mode, FILE* out = stderr);
    ~Progress(); // clears a live line

    // Thread-safe; `detail` (e.g. the current file) is shown on the live line only.
    void update(size_t done, size_t total, const std::string& detail = {});
    void finish();

  private:
    std::string label_;
    Mode mode_;
    FILE* out_;
    std::mutex mutex_;
    int last_tenth_ = -1;
    std::chrono::steady_clock::time_point last_draw_{};
    bool drawn_ = false;
};

} // namespace ksweep::cli
