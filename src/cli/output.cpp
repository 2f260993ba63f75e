#include "cli/output.h"

#include <unistd.h>

namespace ksweep::cli {

Progress::Mode Progress::mode_for_stderr() {
    return isatty(STDERR_FILENO) ? Mode::Live : Mode::Off;
}

Progress::Progress(std::string label, Mode mode, FILE* out)
    : label_(std::move(label)), mode_(mode), out_(out) {}

Progress::~Progress() {
    finish();
}

void Progress::update(size_t done, size_t total, const std::string& detail) {
    if (mode_ == Mode::Off || total == 0)
        return;
    std::lock_guard lock(mutex_);
    int percent = static_cast<int>(done * 100 / total);
    if (mode_ == Mode::Lines) {
        if (percent / 10 == last_tenth_)
            return;
        last_tenth_ = percent / 10;
        std::fprintf(out_, "%s: %zu/%zu (%d%%)\n", label_.c_str(), done, total, percent);
        return;
    }
    // A terminal redraw costs little, but thousands per second only flicker.
    auto now = std::chrono::steady_clock::now();
    if (done != total && drawn_ && now - last_draw_ < std::chrono::milliseconds(50))
        return;
    last_draw_ = now;
    drawn_ = true;
    std::string tail = detail.size() > 50 ? "..." + detail.substr(detail.size() - 47) : detail;
    std::fprintf(out_, "\r\033[K%s: %zu/%zu (%d%%) %s", label_.c_str(), done, total, percent,
                 tail.c_str());
    std::fflush(out_);
}

void Progress::finish() {
    std::lock_guard lock(mutex_);
    if (mode_ == Mode::Live && drawn_) {
        std::fprintf(out_, "\r\033[K");
        std::fflush(out_);
    }
    drawn_ = false;
}

} // namespace ksweep::cli
