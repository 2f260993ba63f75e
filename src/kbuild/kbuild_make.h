// Running the tree's own kbuild: `make` with the caller's arguments, its output streamed to a
// log file as it comes (an interrupted or failed build keeps its log) and to a per-line
// callback (progress: one "  CC      drivers/..." line per compiled file).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ksweep::kbuild {

struct MakeRun {
    int status = -1;      // make's exit status (128+signal when killed); -1: timed out
    std::string log_path; // everything make printed
    std::string errors;   // the lines that say what failed (make_error_lines of the log)
};

// `make ARGS` in `cwd`, without the caller's MAKEFLAGS (under `make test` they name a
// jobserver whose file descriptors this make does not have); stopped after `timeout` when it is
// not zero (status -1, "make timed out after N s" in errors). Throws std::runtime_error when
// make cannot be started or the log cannot be written.
MakeRun run_make(const std::vector<std::string>& args, const std::string& cwd,
                 const std::string& log_path,
                 const std::function<void(const std::string& line)>& on_line = {},
                 std::chrono::seconds timeout = std::chrono::seconds(0));

// The lines of a make log that say why it failed (compiler errors, "*** ...", missing
// targets); the log's last 2000 bytes when none of them is there.
std::string make_error_lines(const std::string& log);

// Jobs for a kbuild run: one per online CPU.
int make_jobs();

} // namespace ksweep::kbuild
