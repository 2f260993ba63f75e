#include "kbuild/tree_fingerprint.h"

#include "core/process.h"
#include "core/sha256.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace fs = std::filesystem;

namespace ksweep::kbuild {

namespace {

bool is_build_file(const std::string& name) {
    return name.rfind("Kconfig", 0) == 0 || name.rfind("Makefile", 0) == 0 ||
           name.rfind("Kbuild", 0) == 0;
}

} // namespace

std::string tree_fingerprint(const std::string& tree, const std::string& arch) {
    const std::vector<std::string> whole_dirs{"scripts/", "include/", "tools/",
                                              "arch/" + arch + "/"};
    std::vector<std::string> entries;
    std::error_code ec;
    fs::recursive_directory_iterator it(tree, fs::directory_options::none, ec), end;
    if (ec)
        throw std::runtime_error("cannot read tree " + tree + ": " + ec.message());
    for (; it != end; it.increment(ec)) {
        if (ec)
            throw std::runtime_error("cannot read tree " + tree + ": " + ec.message());
        const fs::path& path = it->path();
        std::string name = path.filename().string();
        if (it->is_directory(ec)) {
            if (name == ".git")
                it.disable_recursion_pending();
            continue;
        }
        std::string rel = path.lexically_relative(tree).generic_string();
        bool wanted = is_build_file(name) ||
                      std::any_of(whole_dirs.begin(), whole_dirs.end(), [&](const auto& dir) {
                          return rel.compare(0, dir.size(), dir) == 0;
                      });
        if (!wanted || !it->is_regular_file(ec))
            continue;
        auto size = it->file_size(ec);
        auto mtime = it->last_write_time(ec).time_since_epoch().count();
        entries.push_back(rel + " " + std::to_string(size) + " " + std::to_string(mtime) + "\n");
    }
    std::sort(entries.begin(), entries.end());
    Sha256 hash;
    hash.update("ksweep tree fingerprint v1\n");
    for (const auto& entry : entries)
        hash.update(entry);
    return to_hex(hash.finish());
}

std::string compiler_identity() {
    CommandResult gcc = run_command({"gcc", "--version"}, "", std::chrono::seconds(30));
    std::string first = gcc.output.substr(0, gcc.output.find('\n'));
    return gcc.status == 0 ? first : "no gcc";
}

} // namespace ksweep::kbuild
