#include "core/file_lock.h"

#include <cerrno>
#include <fcntl.h>
#include <stdexcept>
#include <sys/file.h>
#include <unistd.h>

namespace ksweep {

FileLock::FileLock(const std::string& path, bool wait)
    : fd_(open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ < 0)
        throw std::runtime_error("cannot create lock file " + path);
    if (flock(fd_, LOCK_EX | (wait ? 0 : LOCK_NB)) == 0) {
        held_ = true;
    } else if (wait || errno != EWOULDBLOCK) {
        close(fd_);
        throw std::runtime_error("cannot lock " + path);
    }
}

FileLock::~FileLock() {
    close(fd_);
}

} // namespace ksweep
