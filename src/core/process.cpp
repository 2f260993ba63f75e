#include "core/process.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ksweep {

namespace {

int decode_status(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

} // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& cwd, int nice) {
    if (argv.empty())
        throw std::runtime_error("empty command");
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    // An exec failure is reported through this pipe, so the constructor can throw.
    int exec_error[2];
    if (pipe2(exec_error, O_CLOEXEC) != 0) {
        close(fds[0]);
        close(fds[1]);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    std::vector<char*> args;
    for (const auto& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

    pid_ = fork();
    if (pid_ < 0)
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
        // Same process group as ksweep: a terminal's ^C stops the whole run at once.
        int null = open("/dev/null", O_RDONLY);
        dup2(null, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (nice != 0)
            (void)setpriority(PRIO_PROCESS, 0, nice); // EPERM leaves it as it was: see nice()
        if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
            int e = errno;
            (void)!write(exec_error[1], &e, sizeof e);
            _exit(127);
        }
        execvp(args[0], args.data());
        int e = errno;
        (void)!write(exec_error[1], &e, sizeof e);
        _exit(127);
    }
    close(fds[1]);
    close(exec_error[1]);
    int child_errno = 0;
    ssize_t got = read(exec_error[0], &child_errno, sizeof child_errno);
    close(exec_error[0]);
    if (got == sizeof child_errno) {
        close(fds[0]);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
        throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(child_errno));
    }
    output_fd_ = fds[0];
    fcntl(output_fd_, F_SETFL, fcntl(output_fd_, F_GETFL) | O_NONBLOCK);
}

int ChildProcess::nice() const {
    errno = 0;
    int value = getpriority(PRIO_PROCESS, pid_); // -1 is a valid niceness: errno tells
    return errno == 0 ? value : 0;
}

ChildProcess::~ChildProcess() {
    if (pid_ > 0 && !status_)
        terminate(std::chrono::milliseconds(500));
    if (output_fd_ >= 0)
        close(output_fd_);
}

bool ChildProcess::read_available(std::string& out) {
    if (output_fd_ < 0)
        return false;
    char buffer[4096];
    for (;;) {
        ssize_t n = read(output_fd_, buffer, sizeof buffer);
        if (n > 0) {
            out.append(buffer, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        close(output_fd_);
        output_fd_ = -1;
        return false;
    }
}

std::optional<int> ChildProcess::poll_exit() {
    if (status_ || pid_ <= 0)
        return status_;
    int status;
    if (waitpid(pid_, &status, WNOHANG) == pid_)
        status_ = decode_status(status);
    return status_;
}

int ChildProcess::wait() {
    if (status_)
        return *status_;
    int status;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    status_ = decode_status(status);
    return *status_;
}

int ChildProcess::terminate(std::chrono::milliseconds grace) {
    if (poll_exit())
        return *status_;
    kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < deadline) {
        if (poll_exit())
            return *status_;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid_, SIGKILL);
    return wait();
}

CommandResult run_command(const std::vector<std::string>& argv, const std::string& cwd,
                          std::chrono::seconds timeout) {
    ChildProcess child(argv, cwd);
    CommandResult result;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (child.output_fd() >= 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            child.terminate();
            child.read_available(result.output);
            return result; // status stays -1: timed out
        }
        pollfd pfd{child.output_fd(), POLLIN, 0};
        poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        child.read_available(result.output);
    }
    result.status = child.wait();
    return result;
}

} // namespace ksweep
