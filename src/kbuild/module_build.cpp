#include "kbuild/module_build.h"

#include "core/cache_entry.h"
#include "core/file_io.h"
#include "core/sha256.h"
#include "kbuild/kbuild_make.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep::kbuild {

namespace {

constexpr const char* kDoneMarker = ".ksweep-built";  // written last: the entry is complete
constexpr const char* kStatusFile = ".ksweep-status"; // "ok", or "failed[: why]"

void write_file(const fs::path& path, const std::string& content) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out)
        throw std::runtime_error("cannot write " + path.string());
}

// The kernel release a prepared build dir is for ("" when it does not say).
std::string build_dir_release(const std::string& build_dir) {
    for (const char* rel : {"include/config/kernel.release", "include/generated/utsrelease.h"})
        if (auto text = read_file(fs::path(build_dir) / rel))
            return *text;
    return "";
}

// A failed build the caller does not keep: the entry stays incomplete (its log readable until
// the next attempt removes it).
struct NotKept {};

} // namespace

std::string kbuild_file(const std::string& comment, const std::vector<KbuildTarget>& targets) {
    std::string kbuild = "# " + comment + "\n";
    std::set<std::string> written;
    for (const auto& target : targets) {
        kbuild += "obj-m += " + target.name + ".o\n";
        for (const auto& line : target.lines)
            if (written.insert(line).second)
                kbuild += line + "\n";
    }
    return kbuild;
}

std::vector<std::string> build_warning_lines(const std::string& log) {
    std::vector<std::string> warnings;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);)
        if (line.find("warning:") != std::string::npos || line.rfind("WARNING:", 0) == 0)
            warnings.push_back(line);
    return warnings;
}

ExternalModuleBuildResult build_external_modules(const ExternalModuleBuild& build) {
    ExternalModuleBuildResult result;
    if (!fs::is_regular_file(fs::path(build.build_dir) / "Makefile")) {
        result.error = "no prepared kernel headers at '" + build.build_dir + "'";
        return result;
    }
    const fs::path module_rel = build.module_dir;
    std::map<std::string, std::string> files = build.files;
    files[(module_rel / "Kbuild").string()] = kbuild_file(build.kbuild_comment, build.targets);

    Sha256 key_hash;
    key_hash.update("ksweep external module build v1\n");
    key_hash.update(fs::absolute(build.build_dir).lexically_normal().string() + "\n");
    key_hash.update(build_dir_release(build.build_dir) + "\n");
    key_hash.update(build.module_dir + "\n");
    for (const auto& arg : build.make_args)
        key_hash.update(arg + "\n");
    for (const auto& [name, content] : files) {
        key_hash.update(name + "\n" + std::to_string(content.size()) + "\n");
        key_hash.update(content);
    }
    std::string key = to_hex(key_hash.finish()).substr(0, 24);

    const fs::path root = fs::absolute(build.cache_dir);
    const fs::path dir = root / key;
    const fs::path module_dir = module_rel.empty() ? dir : dir / module_rel; // M= of the build
    result.dir = dir.string();
    result.log_path = (dir / "build.log").string();
    for (const auto& target : build.targets)
        result.modules.push_back((module_dir / (target.name + ".ko")).string());

    try {
        CacheEntry entry = make_cache_entry(root, key, kDoneMarker, "", [&](const fs::path& d) {
            for (const auto& [name, content] : files)
                write_file(d / name, content);
            std::vector<std::string> args{"-C", build.build_dir, "M=" + module_dir.string()};
            args.insert(args.end(), build.make_args.begin(), build.make_args.end());
            args.emplace_back("modules");
            MakeRun make = run_make(args, d.string(), result.log_path, {}, build.timeout);
            if (make.status < 0) { // timed out: never kept, whoever asks
                write_file(d / kStatusFile, "failed: " + make.errors);
                throw NotKept{};
            }
            std::string status = make.status == 0 ? "ok" : "failed";
            for (const auto& ko : result.modules)
                if (status == "ok" && !fs::exists(ko))
                    status = "failed: make succeeded but " + ko + " is missing";
            write_file(d / kStatusFile, status);
            if (status != "ok" && !build.keep_failures)
                throw NotKept{};
        });
        result.cached = !entry.made_now;
    } catch (const NotKept&) {
    }
    std::string status = read_file(dir / kStatusFile).value_or("failed");
    result.ok = status == "ok";
    result.log = read_file(result.log_path).value_or("");
    if (!result.ok)
        result.error =
            status.rfind("failed: ", 0) == 0 ? status.substr(8) : make_error_lines(result.log);
    return result;
}

} // namespace ksweep::kbuild
