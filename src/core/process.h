// Child processes for the validation runs (make, ksweep-tpmd, qemu-system-x86_64): spawned
// with stdout and stderr merged into one pipe the caller reads without blocking, and always
// reaped (killed first if still running) when the handle goes away.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ksweep {

class ChildProcess {
  public:
    // Starts argv[0] (searched in PATH) with stdin from /dev/null, at niceness `nice` when it
    // is not 0 (a negative one needs CAP_SYS_NICE; without it the child keeps ksweep's: see
    // nice()). Throws std::runtime_error when it cannot be started.
    explicit ChildProcess(const std::vector<std::string>& argv, const std::string& cwd = "",
                          int nice = 0);
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    pid_t pid() const { return pid_; }
    // The niceness the child runs at (set before exec, so every thread it starts inherits it).
    int nice() const;
    // The read end of the child's stdout+stderr; -1 once it reached end of file.
    int output_fd() const { return output_fd_; }
    // Reads what is available now (non-blocking); appends to `out`. False at end of file.
    bool read_available(std::string& out);

    // Exit status if it exited (128+signal if killed by one); nullopt while running.
    std::optional<int> poll_exit();
    int wait();
    // SIGTERM, then SIGKILL after `grace`; returns the exit status.
    int terminate(std::chrono::milliseconds grace = std::chrono::milliseconds(2000));

  private:
    pid_t pid_ = -1;
    int output_fd_ = -1;
    std::optional<int> status_;
};

struct CommandResult {
    int status = -1;    // exit status; -1 when killed for the timeout
    std::string output; // stdout and stderr, interleaved as written
};

// Runs a command to completion, capturing its output; kills it after `timeout`.
CommandResult run_command(const std::vector<std::string>& argv, const std::string& cwd,
                          std::chrono::seconds timeout);

} // namespace ksweep
