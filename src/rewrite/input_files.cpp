#include "rewrite/input_files.h"

#include "core/file_io.h"
#include "core/sha256.h"

#include <chrono>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

constexpr long long kRacyNanoseconds = 2'000'000'000LL;

// One line: "<sha256> <size> <mtime ns, -1: always compare> <path>".
struct InputFile {
    std::string sha;
    long long size = 0, mtime = -1;
    std::string path;
};

std::optional<InputFile> stat_of(const std::string& path) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0)
        return std::nullopt;
    InputFile f;
    f.path = path;
    f.size = st.st_size;
    f.mtime = static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000LL + st.st_mtim.tv_nsec;
    return f;
}

// The content this process has seen each file have, at the size and time it had then: a parse
// on a preamble reads the same few hundred headers the preamble's list was just checked against,
// and listing them again for the parse's results need not read and hash them all once more.
class SeenContent {
  public:
    // A file changed within the last seconds is not remembered: a second change in the same
    // tick of a coarse clock would keep its size and time.
    void remember(const InputFile& f) {
        if (f.mtime > now_ns() - kRacyNanoseconds)
            return;
        std::lock_guard lock(mutex_);
        seen_[f.path] = f;
    }
    // The SHA-256 of `now` (a stat just made), when this process saw the file at that size and
    // time.
    std::optional<std::string> sha_of(const InputFile& now) const {
        std::lock_guard lock(mutex_);
        const auto it = seen_.find(now.path);
        if (it == seen_.end() || it->second.size != now.size || it->second.mtime != now.mtime)
            return std::nullopt;
        return it->second.sha;
    }

  private:
    mutable std::mutex mutex_;
    std::map<std::string, InputFile> seen_;
};

SeenContent& seen_content() {
    static SeenContent seen;
    return seen;
}

bool same_content(const InputFile& recorded) {
    auto now = stat_of(recorded.path);
    if (!now || now->size != recorded.size)
        return false;
    if (recorded.mtime >= 0 && now->mtime == recorded.mtime) {
        now->sha = recorded.sha;
        seen_content().remember(*now);
        return true;
    }
    auto text = read_file(recorded.path);
    if (!text || to_hex(sha256(*text)) != recorded.sha)
        return false;
    now->sha = recorded.sha;
    seen_content().remember(*now);
    return true;
}

std::vector<InputFile> read_list(const fs::path& list, bool* torn) {
    std::vector<InputFile> out;
    std::ifstream in(list);
    std::string line;
    *torn = !in;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        InputFile f;
        fields >> f.sha >> f.size >> f.mtime;
        if (!fields || fields.get() != ' ' || !std::getline(fields, f.path)) {
            *torn = true;
            break;
        }
        out.push_back(std::move(f));
    }
    return out;
}

} // namespace

long long now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

bool write_input_files(const fs::path& list, const std::vector<std::string>& files,
                       long long started_ns) {
    std::ostringstream out;
    for (const std::string& file : files) {
        auto f = stat_of(file);
        if (!f)
            return false;
        if (auto seen = seen_content().sha_of(*f)) {
            f->sha = *seen;
        } else {
            auto text = read_file(file);
            if (!text)
                return false;
            f->sha = to_hex(sha256(*text));
        }
        if (f->mtime > started_ns - kRacyNanoseconds)
            f->mtime = -1;
        out << f->sha << ' ' << f->size << ' ' << f->mtime << ' ' << f->path << '\n';
    }
    return write_file_whole(list, out.str());
}

bool input_files_unchanged(const fs::path& list) {
    bool torn = false;
    const std::vector<InputFile> files = read_list(list, &torn);
    if (torn || files.empty())
        return false;
    for (const InputFile& f : files)
        if (!same_content(f))
            return false;
    return true;
}

std::vector<std::string> input_file_paths(const fs::path& list) {
    bool torn = false;
    std::vector<std::string> paths;
    for (InputFile& f : read_list(list, &torn))
        paths.push_back(std::move(f.path));
    return paths;
}

} // namespace ksweep
