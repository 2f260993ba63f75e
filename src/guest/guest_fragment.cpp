#include "guest/guest_fragment.h"

#include "core/file_io.h"
#include "core/sha256.h"
#include "guest/guest_config.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

// symbol -> (value, where it was asked) of `CONFIG_X=v` lines.
void collect(const std::string& text, const std::string& where,
             std::map<std::string, std::pair<std::string, std::string>>& asked) {
    static const std::regex kLine(R"(^(CONFIG_[A-Za-z0-9_]+)=(.*)$)");
    std::istringstream in(text);
    std::smatch m;
    for (std::string line; std::getline(in, line);)
        if (std::regex_match(line, m, kLine))
            asked.emplace(m[1], std::pair{m[2].str(), where});
}

} // namespace

std::string device_config_fragment(const device::DeviceRegistry& registry,
                                   const std::string& base) {
    std::map<std::string, std::pair<std::string, std::string>> asked;
    collect(base, "qemu/guest.config", asked);
    std::string text, files;
    for (const auto& entry : registry.entries()) {
        if (!entry.spec)
            continue;
        bool any = false;
        for (const auto& line : entry.spec->config) {
            auto eq = line.find('=');
            std::string symbol = line.substr(0, eq), value = line.substr(eq + 1);
            auto [it, added] = asked.emplace(symbol, std::pair{value, entry.spec->path});
            if (!added && it->second.first != value)
                throw GuestBuildError(entry.spec->path + " asks " + line + ", but " +
                                      it->second.second + " asks " + symbol + "=" +
                                      it->second.first + ": one guest kernel serves both");
            if (added) {
                text += line + "\n";
                any = true;
            }
        }
        if (any)
            files += " " + fs::path(entry.spec->path).filename().string();
    }
    // The comment names files, never a symbol: merge_config.sh greps for those.
    return text.empty() ? "" : "\n# The device files' symbols:" + files + "\n" + text;
}

std::string write_guest_fragment(const std::string& base_path,
                                 const device::DeviceRegistry& registry,
                                 const std::string& cache_dir) {
    auto base = read_file(base_path);
    if (!base)
        throw GuestBuildError("cannot read the guest's config fragment " + base_path);
    std::string text = *base + device_config_fragment(registry, *base);
    fs::path dir = fs::path(cache_dir) / "guest-fragments";
    fs::path path = dir / (to_hex(sha256(text)).substr(0, 16) + ".config");
    if (fs::exists(path))
        return path.string();
    fs::create_directories(dir);
    // Write then rename: a concurrent run never reads half a fragment.
    fs::path tmp = path;
    tmp += ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << text;
        if (!out)
            throw GuestBuildError("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
    return path.string();
}

} // namespace ksweep::guest
