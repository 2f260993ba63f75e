#include "kbuild/kernel_tree.h"

#include "core/file_io.h"

#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

namespace ksweep::kbuild {

namespace {

// "KEY = value" lines of a Makefile or "KEY=value" of a .config.
std::optional<std::string> assignment(const std::string& text, const std::string& key) {
    std::regex re("^" + key + "\\s*=\\s*(\\S*)\\s*$", std::regex::multiline);
    std::smatch m;
    if (std::regex_search(text, m, re))
        return m[1].str();
    return std::nullopt;
}

} // namespace

std::optional<KernelVersion> read_kernel_version(const std::string& tree) {
    auto text = read_file(fs::path(tree) / "Makefile");
    return text ? kernel_version_in(*text) : std::nullopt;
}

std::optional<KernelVersion> kernel_version_in(const std::string& makefile) {
    auto major = assignment(makefile, "VERSION");
    auto minor = assignment(makefile, "PATCHLEVEL");
    auto sub = assignment(makefile, "SUBLEVEL");
    if (!major || !minor || major->empty() || minor->empty())
        return std::nullopt;
    KernelVersion v;
    v.major = std::stoi(*major);
    v.minor = std::stoi(*minor);
    v.sublevel = sub && !sub->empty() ? std::stoi(*sub) : 0;
    return v;
}

std::optional<int> read_config_hz(const std::string& build_dir) {
    for (const char* name : {".config", "include/config/auto.conf"}) {
        auto text = read_file(fs::path(build_dir) / name);
        if (!text)
            continue;
        if (auto hz = assignment(*text, "CONFIG_HZ"))
            return std::stoi(*hz);
    }
    return std::nullopt;
}

std::string find_build_dir(const std::string& tree, const KernelVersion& version) {
    if (fs::exists(fs::path(tree) / "include/generated/autoconf.h"))
        return tree;
    // Debian: linux-headers-6.1.0-57-amd64 holds .config and the generated headers; its
    // Makefile includes the -common tree, whose version says which source it matches.
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/usr/src", ec)) {
        auto name = entry.path().filename().string();
        if (name.rfind("linux-headers-", 0) != 0 || name.find("-common") != std::string::npos)
            continue;
        if (!fs::exists(entry.path() / "include/generated/autoconf.h"))
            continue;
        auto common = entry.path().string();
        common.replace(common.rfind('-'), std::string::npos, "-common");
        auto v = read_kernel_version(fs::exists(common) ? common : entry.path().string());
        if (v && v->major == version.major && v->minor == version.minor &&
            v->sublevel == version.sublevel)
            return entry.path().string();
    }
    return {};
}

std::string to_string(const KernelVersion& v) {
    return std::to_string(v.major) + "." + std::to_string(v.minor) + "." +
           std::to_string(v.sublevel);
}

} // namespace ksweep::kbuild
