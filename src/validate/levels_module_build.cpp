#include "validate/levels_module_build.h"

#include "core/file_io.h"
#include "core/sha256.h"
#include "kbuild/kbuild_make.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ksweep::validate {

using namespace ksweep::kbuild;

namespace {

constexpr const char* kStatusFile = ".ksweep-status"; // "ok" or "failed", written last

bool is_build_input(const fs::path& p) {
    auto ext = p.extension();
    auto name = p.filename();
    return ext == ".c" || ext == ".h" || ext == ".S" || name == "Makefile" || name == "Kbuild";
}

void add_outside_includes(const std::string& root, const std::string& rel, const std::string& text,
                          SourceSnapshot& files) {
    static const std::regex kQuoted(R"re(^[ \t]*#[ \t]*include[ \t]*"([^"]+)")re",
                                    std::regex::multiline);
    for (std::sregex_iterator it(text.begin(), text.end(), kQuoted), end; it != end; ++it) {
        fs::path target = (fs::path(rel).parent_path() / (*it)[1].str()).lexically_normal();
        std::string key = target.string();
        if (key.empty() || key.rfind("..", 0) == 0 || files.count(key))
            continue; // outside the tree, or already there
        if (auto content = read_tree_file(root, key)) {
            files[key] = *content;
            add_outside_includes(root, key, *content, files);
        }
    }
}

// modpost's "undefined!" warnings of a build without the config's Module.symvers: every
// symbol from outside the module is unknown then, so a patch calling usleep_range() instead
// of msleep() would "add" one. They say nothing about the patch; the level says so instead.
bool unresolved_symbol_warning(const std::string& line) {
    return line.find("modpost") != std::string::npos &&
           (line.find("undefined!") != std::string::npos ||
            line.find("unresolved symbol") != std::string::npos);
}

std::vector<std::string> warning_lines(const std::string& log, const std::string& dir,
                                       bool without_symvers) {
    std::vector<std::string> out;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
        if (line.find("warning:") == std::string::npos && line.rfind("WARNING:", 0) != 0)
            continue;
        if (without_symvers && (unresolved_symbol_warning(line) ||
                                line.find("Module.symvers is missing") != std::string::npos))
            continue;
        out.push_back(normalise_warning(line, dir));
    }
    return out;
}

void write_all(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out)
        throw std::runtime_error("cannot write " + path.string());
}

} // namespace

bool linked_without_symvers(const std::string& build_dir) {
    return !fs::exists(fs::path(build_dir) / "Module.symvers");
}

SourceSnapshot snapshot_module(const std::string& root, const KbuildModule& module) {
    SourceSnapshot files;
    fs::path dir = fs::path(root) / module.directory;
    if (!fs::is_directory(dir))
        return files;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
        if (!entry.is_regular_file() || !is_build_input(entry.path()))
            continue;
        std::string rel = fs::relative(entry.path(), root).string();
        files[rel] = read_file(entry.path()).value_or("");
    }
    SourceSnapshot inside = files;
    for (const auto& [rel, text] : inside)
        add_outside_includes(root, rel, text, files);
    return files;
}

std::string normalise_warning(const std::string& line, const std::string& build_dir) {
    std::string out = line;
    std::string prefix = build_dir.empty() || build_dir.back() == '/' ? build_dir : build_dir + "/";
    for (size_t at; !prefix.empty() && (at = out.find(prefix)) != std::string::npos;)
        out.erase(at, prefix.size());
    static const std::regex kPosition(R"(^([^: ]+\.[chS]):[0-9]+(:[0-9]+)?:)");
    return std::regex_replace(out, kPosition, "$1:");
}

std::vector<std::string> new_warnings(const std::vector<std::string>& baseline,
                                      const std::vector<std::string>& patched) {
    std::multiset<std::string> left(baseline.begin(), baseline.end());
    std::vector<std::string> added;
    for (const auto& w : patched) {
        auto it = left.find(w);
        if (it != left.end())
            left.erase(it);
        else
            added.push_back(w);
    }
    return added;
}

KbuildResult build_module_snapshot(const SourceSnapshot& files, const KbuildModule& module,
                                   const std::string& headers_dir, const std::string& cache_dir) {
    KbuildResult result;
    if (!fs::is_regular_file(fs::path(headers_dir) / "Makefile")) {
        result.error = "no prepared kernel headers at '" + headers_dir + "'";
        return result;
    }
    std::string kbuild = "# Generated by ksweep validate: " + module.name +
                         " alone, as a module.\n"
                         "obj-m += " +
                         module.name + ".o\n";
    for (const auto& line : module.kbuild_lines)
        kbuild += line + "\n";

    Sha256 key_hash;
    key_hash.update("ksweep validate module build v3\n" + headers_dir + "\n");
    const fs::path release = fs::path(headers_dir) / "include/config/kernel.release";
    key_hash.update(read_file(release).value_or(""));
    key_hash.update(module.directory + "\n" + kbuild);
    for (const auto& [rel, text] : files) {
        key_hash.update(rel + "\n" + std::to_string(text.size()) + "\n");
        key_hash.update(text);
    }
    std::string key = to_hex(key_hash.finish()).substr(0, 24);
    fs::path dir = fs::absolute(cache_dir) / key;
    fs::path module_dir = dir / module.directory;
    result.dir = dir.string();
    result.log_path = (dir / "build.log").string();
    result.module_path = (module_dir / (module.name + ".ko")).string();

    if (fs::exists(dir / kStatusFile)) {
        result.cached = true;
        std::string log = read_file(result.log_path).value_or("");
        result.warnings = warning_lines(log, dir.string(), linked_without_symvers(headers_dir));
        result.ok = read_file(dir / kStatusFile).value_or("") == "ok";
        if (!result.ok)
            result.error = make_error_lines(log);
        return result;
    }

    // Build beside the final place and rename: a crash never leaves a half build behind a key.
    fs::path work = fs::absolute(cache_dir) / (key + ".tmp-" + std::to_string(getpid()));
    fs::remove_all(work);
    for (const auto& [rel, text] : files)
        write_all(work / rel, text);
    write_all(work / module.directory / "Kbuild", kbuild);
    // Warnings are what L3 compares, so a config's CONFIG_WERROR (allmodconfig has it) must
    // not turn the baseline's into errors.
    std::vector<std::string> args{"-C", headers_dir, "M=" + (work / module.directory).string(),
                                  "KCFLAGS=-Wno-error", "modules"};
    if (linked_without_symvers(headers_dir)) // 6.12's modpost stops at the first unknown symbol
        args.insert(args.begin(), "KBUILD_MODPOST_WARN=1");
    MakeRun make = run_make(args, "", (work / "build.log").string());
    std::string log = read_file(work / "build.log").value_or("");
    // Paths in the log name the temporary directory; store them as the final one.
    for (size_t at; (at = log.find(work.string())) != std::string::npos;)
        log.replace(at, work.string().size(), dir.string());
    write_all(work / "build.log", log);
    result.ok = make.status == 0 && fs::exists(work / module.directory / (module.name + ".ko"));
    write_all(work / kStatusFile, result.ok ? "ok" : "failed");
    std::error_code ec;
    fs::rename(work, dir, ec);
    if (ec) // another run built the same key meanwhile: theirs is as good as ours
        fs::remove_all(work);
    result.warnings = warning_lines(log, dir.string(), linked_without_symvers(headers_dir));
    if (!result.ok)
        result.error = make_error_lines(log);
    return result;
}

} // namespace ksweep::validate
