#include "kbuild/kbuild_make.h"

#include "core/process.h"

#include <fstream>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ksweep::kbuild {

MakeRun run_make(const std::vector<std::string>& args, const std::string& cwd,
                 const std::string& log_path,
                 const std::function<void(const std::string& line)>& on_line,
                 std::chrono::seconds timeout) {
    MakeRun run;
    run.log_path = log_path;
    std::ofstream log(log_path, std::ios::binary | std::ios::trunc);
    if (!log)
        throw std::runtime_error("cannot write " + log_path);
    std::vector<std::string> argv{"env",    "-u", "MAKEFLAGS", "-u",
                                  "MFLAGS", "-u", "MAKELEVEL", "make"};
    argv.insert(argv.end(), args.begin(), args.end());
    ChildProcess make(argv, cwd);
    std::string pending, everything;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (timeout.count() > 0 && std::chrono::steady_clock::now() > deadline) {
            make.terminate();
            run.status = -1;
            run.errors = "make timed out after " + std::to_string(timeout.count()) + " s\n";
            return run;
        }
        pollfd p{make.output_fd(), POLLIN, 0};
        if (make.output_fd() >= 0)
            poll(&p, 1, 200);
        std::string chunk;
        bool open = make.read_available(chunk);
        log << chunk << std::flush;
        everything += chunk;
        pending += chunk;
        for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1))
            if (on_line)
                on_line(pending.substr(0, nl));
        if (!open)
            break;
    }
    run.status = make.wait();
    if (run.status != 0)
        run.errors = make_error_lines(everything);
    return run;
}

std::string make_error_lines(const std::string& log) {
    std::string errors;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);)
        if (line.find("error:") != std::string::npos || line.find("Error ") != std::string::npos ||
            line.find("***") != std::string::npos ||
            line.find("No rule to make target") != std::string::npos)
            errors += line + "\n";
    return errors.empty() ? log.substr(log.size() > 2000 ? log.size() - 2000 : 0) : errors;
}

int make_jobs() {
    unsigned n = std::thread::hardware_concurrency();
    return n ? static_cast<int>(n) : 2;
}

} // namespace ksweep::kbuild
