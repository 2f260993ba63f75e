#include "guest/module_build.h"

#include "core/file_io.h"
#include "core/file_lock.h"
#include "core/process.h"
#include "core/sha256.h"
#include "kbuild/kbuild_make.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

constexpr const char* kDoneMarker = ".ksweep-built";

void write_file(const fs::path& path, const std::string& content) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
    if (!out)
        throw std::runtime_error("cannot write " + path.string());
}

// The files of one build: path inside the build directory -> content, and -> where it came
// from (so messages name the user's files, not the cache's copies).
struct FileSet {
    std::map<std::string, std::string> content;
    std::map<std::string, std::string> origin;
};

// A relative include name that stays inside the build directory once joined to `base`.
std::optional<std::string> inside_build_dir(const fs::path& base, const std::string& name) {
    fs::path joined = (base / name).lexically_normal();
    if (joined.is_absolute() || joined.empty() || *joined.begin() == "..")
        return std::nullopt;
    return joined.string();
}

// Adds the "quoted" includes of `content` (found beside the including file, then in
// include_dirs), and theirs, recursively. Angle includes come from the kernel headers.
void add_private_includes(const std::string& content, const fs::path& source_dir,
                          const fs::path& build_rel_dir, const ModuleBuildRequest& request,
                          FileSet& files) {
    static const std::regex kQuotedInclude(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re",
                                           std::regex::multiline);
    for (std::sregex_iterator it(content.begin(), content.end(), kQuotedInclude), end; it != end;
         ++it) {
        std::string name = (*it)[1];
        auto target = inside_build_dir(build_rel_dir, name);
        if (!target || files.content.count(*target))
            continue; // make will name a missing header; it is not ours to guess
        std::vector<fs::path> candidates{source_dir / name};
        for (const auto& dir : request.include_dirs)
            candidates.push_back(fs::path(dir) / name);
        for (const auto& candidate : candidates) {
            if (auto text = read_file(candidate); text && fs::is_regular_file(candidate)) {
                files.content[*target] = *text;
                files.origin[*target] = candidate.string();
                add_private_includes(*text, candidate.parent_path(),
                                     fs::path(*target).parent_path(), request, files);
                break;
            }
        }
    }
}

std::string kernel_release_of(const std::string& headers_dir) {
    for (const char* rel : {"include/config/kernel.release", "include/generated/utsrelease.h"})
        if (auto text = read_file(fs::path(headers_dir) / rel))
            return *text;
    return "";
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
        text.replace(at, from.size(), to);
}

std::vector<std::string> warning_lines(const std::string& log) {
    std::vector<std::string> warnings;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);)
        if (line.find("warning:") != std::string::npos || line.rfind("WARNING:", 0) == 0)
            warnings.push_back(line);
    return warnings;
}

} // namespace

ModuleBuildResult build_modules(const ModuleBuildRequest& request) {
    ModuleBuildResult result;
    if (request.sources.empty()) {
        result.error = "no module sources given";
        return result;
    }
    if (!fs::is_regular_file(fs::path(request.headers_dir) / "Makefile")) {
        result.error = "no prepared kernel headers at '" + request.headers_dir +
                       "' (install linux-headers-<release>, or run scripts/setup.sh)";
        return result;
    }

    FileSet files;
    const fs::path subdir = request.subdir;
    std::vector<std::string> module_names;
    for (const auto& source : request.sources) {
        fs::path path(source);
        auto text = read_file(path);
        if (!text || path.extension() != ".c") {
            result.error = "cannot read module source '" + source + "' (a .c file)";
            return result;
        }
        std::string name = (subdir / path.filename()).string();
        if (files.content.count(name)) {
            result.error = "two module sources named " + name;
            return result;
        }
        files.content[name] = *text;
        files.origin[name] = source;
        add_private_includes(*text, path.parent_path(), subdir, request, files);
    }
    std::string kbuild;
    if (request.targets.empty()) {
        kbuild = "# Generated by ksweep: one module per source.\n";
        for (const auto& source : request.sources) {
            module_names.push_back(fs::path(source).stem().string());
            kbuild += "obj-m += " + module_names.back() + ".o\n";
        }
    } else {
        // The tree's own composition, each line once (flag lines repeat per module).
        kbuild = "# Generated by ksweep: the modules under test, as their Makefile makes them.\n";
        std::set<std::string> written;
        for (const auto& target : request.targets) {
            module_names.push_back(target.name);
            kbuild += "obj-m += " + target.name + ".o\n";
            for (const auto& line : target.lines)
                if (written.insert(line).second)
                    kbuild += line + "\n";
        }
    }
    files.content[(subdir / "Kbuild").string()] = kbuild;

    Sha256 key_hash;
    key_hash.update("ksweep module build v1\n");
    key_hash.update(fs::absolute(request.headers_dir).lexically_normal().string() + "\n");
    key_hash.update(kernel_release_of(request.headers_dir));
    for (const auto& [name, content] : files.content) {
        key_hash.update(name + "\n" + std::to_string(content.size()) + "\n");
        key_hash.update(content);
    }
    std::string key = to_hex(key_hash.finish()).substr(0, 20);

    fs::path dir = fs::absolute(request.cache_dir) / key;
    fs::path module_dir = subdir.empty() ? dir : dir / subdir; // M= of the build
    fs::create_directories(request.cache_dir);
    FileLock lock((fs::path(request.cache_dir) / (key + ".lock")).string());
    result.dir = dir.string();
    result.log_path = (dir / "build.log").string();
    for (const auto& name : module_names)
        result.modules.push_back((module_dir / (name + ".ko")).string());

    // Compiler messages about the cache's copies, pointed at the files the user gave.
    auto with_user_paths = [&](std::string text) {
        for (const auto& [name, origin] : files.origin)
            replace_all(text, (dir / name).string() + ":", origin + ":");
        return text;
    };
    if (fs::exists(dir / kDoneMarker)) {
        result.ok = result.cached = true;
        result.warnings = warning_lines(with_user_paths(read_file(result.log_path).value_or("")));
        return result;
    }

    fs::remove_all(dir); // a failed or interrupted earlier attempt
    for (const auto& [name, content] : files.content)
        write_file(dir / name, content);
    // Without the caller's make variables: under `make test` they name a jobserver whose file
    // descriptors this make does not have.
    CommandResult make =
        run_command({"env", "-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL", "make", "-C",
                     request.headers_dir, "M=" + module_dir.string(), "modules"},
                    dir.string(), std::chrono::seconds(900));
    write_file(result.log_path, make.output);
    std::string output = with_user_paths(make.output);
    result.warnings = warning_lines(output);
    if (make.status != 0) {
        result.error = make.status < 0 ? "make timed out\n" : kbuild::make_error_lines(output);
        return result;
    }
    for (const auto& ko : result.modules)
        if (!fs::exists(ko)) {
            result.error = "make succeeded but " + ko + " is missing";
            return result;
        }
    write_file(dir / kDoneMarker, "");
    result.ok = true;
    return result;
}

} // namespace ksweep::guest
