// An exclusive lock between processes on one cache entry (two ksweep runs, or a test and a
// run, building the same thing): flock(2) on a lock file beside the entry. The kernel drops it
// when the process dies, so an interrupted run never leaves a lock behind.
#pragma once

#include <string>

namespace ksweep {

class FileLock {
  public:
    // Blocks until the lock is ours (with `wait` false, returns at once: held() says whether
    // it is); throws std::runtime_error naming the file when it cannot be created or locked.
    explicit FileLock(const std::string& path, bool wait = true);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

    bool held() const { return held_; }

  private:
    int fd_;
    bool held_ = false;
};

} // namespace ksweep
