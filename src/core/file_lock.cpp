#include "core/file_lock.h"

#include <fcntl.h>
#include <stdexcept>
#include <sys/file.h>
#include <unistd.h>

namespace ksweep {

FileLock::FileLock(const std::string& path)
    : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
        throw std::runtime_error("cannot create lock file " + path);
    if (flock(fd_, LOCK_EX) != 0) {
        close(fd_);
        throw std::runtime_error("cannot lock " + path);
    }
}

FileLock::~FileLock() {
    close(fd_);
}

} // namespace ksweep
