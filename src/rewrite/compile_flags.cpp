#include "rewrite/compile_flags.h"

#include "kbuild/kbuild_flags.h"

#include <algorithm>
#include <clang/Tooling/JSONCompilationDatabase.h>
#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep {

using namespace ksweep::kbuild;

namespace {

// Debian splits the headers: <ver>-amd64 holds the generated files and .config, <ver>-common
// the sources. Both count, the flavour's first.
std::vector<std::string> build_roots(const std::string& build_dir) {
    std::vector<std::string> roots{build_dir};
    auto dash = build_dir.rfind('-');
    if (dash != std::string::npos) {
        std::string common = build_dir.substr(0, dash) + "-common";
        if (common != build_dir && fs::is_directory(common))
            roots.push_back(common);
    }
    return roots;
}

// The architecture whose generated headers the build dir holds (x86 for Debian amd64).
std::string arch_of(const std::vector<std::string>& roots) {
    if (fs::is_directory(roots.front() + "/arch/x86/include/generated"))
        return "x86";
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(roots.front() + "/arch", ec))
        if (fs::is_directory(e.path() / "include/generated"))
            return e.path().filename().string();
    return "x86";
}

// Flags gcc understands and clang does not, or that make a syntax-only parse noisy.
bool drop_flag(const std::string& a) {
    static const char* const prefixes[] = {"-W",
                                           "-fconserve-stack",
                                           "-fno-allow-store-data-races",
                                           "-mindirect-branch",
                                           "-mfunction-return",
                                           "-fno-var-tracking",
                                           "-mrecord-mcount",
                                           "-fmin-function-alignment",
                                           "-mskip-rax-setup",
                                           "-fsanitize",
                                           "-fplugin",
                                           "-fno-ipa",
                                           "-fzero-call-used-regs",
                                           "-mharden-sls",
                                           "-fpatchable-function-entry",
                                           "-falign-jumps",
                                           "-fstack-clash",
                                           "-mpreferred-stack-boundary",
                                           "-Wp,",
                                           "-g",
                                           "-O",
                                           "-pg",
                                           "-mfentry",
                                           "-fcf-protection",
                                           "-fno-stack-clash"};
    return std::any_of(std::begin(prefixes), std::end(prefixes),
                       [&](const char* p) { return a.rfind(p, 0) == 0; });
}

} // namespace

CompileFlags::CompileFlags(std::string tree, std::string build_dir)
    : tree_(std::move(tree)), build_dir_(std::move(build_dir)),
      kbuild_(std::make_unique<KbuildFlags>(tree_)) {
    for (const auto& dir : {build_dir_, tree_}) {
        if (dir.empty() || !fs::exists(dir + "/compile_commands.json"))
            continue;
        std::string error;
        database_ = clang::tooling::JSONCompilationDatabase::loadFromFile(
            dir + "/compile_commands.json", error,
            clang::tooling::JSONCommandLineSyntax::AutoDetect);
        if (database_) {
            database_path_ = dir + "/compile_commands.json";
            break;
        }
    }
    std::vector<std::string> roots{tree_};
    if (!build_dir_.empty() && build_dir_ != tree_)
        for (const auto& r : build_roots(build_dir_))
            roots.push_back(r);
    arch_ = arch_of(build_dir_.empty() ? roots : build_roots(build_dir_));
    // kbuild's LINUXINCLUDE order; each directory from the tree first, then the build dirs.
    const std::string a = "arch/" + arch_ + "/include";
    for (const auto& sub :
         {a, a + "/generated", std::string("include"), a + "/uapi", a + "/generated/uapi",
          std::string("include/uapi"), std::string("include/generated/uapi")})
        for (const auto& root : roots)
            if (fs::is_directory(root + "/" + sub))
                include_dirs_.push_back(root + "/" + sub);
    if (!build_dir_.empty())
        for (const char* header : {"include/linux/compiler-version.h", "include/linux/kconfig.h",
                                   "include/linux/compiler_types.h"})
            for (const auto& root : roots)
                if (fs::exists(root + "/" + header)) {
                    forced_includes_.push_back(root + "/" + header);
                    break;
                }
}

CompileFlags::~CompileFlags() = default;
CompileFlags::CompileFlags(CompileFlags&&) noexcept = default;

std::string CompileFlags::describe() const {
    if (database_)
        return "compile_commands.json (" + database_path_ + ")";
    if (!build_dir_.empty())
        return "kbuild flags for " + build_dir_;
    return "plain";
}

std::vector<std::string> CompileFlags::for_file(const std::string& rel_path) const {
    std::string abs = (fs::path(tree_) / rel_path).string();
    if (database_) {
        auto commands = database_->getCompileCommands(abs);
        if (!commands.empty()) {
            std::vector<std::string> args;
            const auto& line = commands.front().CommandLine;
            for (size_t i = 1; i < line.size(); ++i) {
                const std::string& a = line[i];
                if (a == "-o" || a == "-MF" || a == "-MT") {
                    ++i;
                    continue;
                }
                if (a == "-c" || a == abs || a == rel_path || drop_flag(a) ||
                    fs::path(a).filename() == fs::path(rel_path).filename())
                    continue;
                // Relative include dirs in the database are relative to its directory.
                if (a.rfind("-I", 0) == 0 && a.size() > 2 && a[2] != '/')
                    args.push_back("-I" + commands.front().Directory + "/" + a.substr(2));
                else
                    args.push_back(a);
            }
            args.insert(args.end(), {"-Qunused-arguments", "-Wno-everything", "-ferror-limit=1",
                                     "-fno-caret-diagnostics"});
            return args;
        }
    }
    return synthesized(rel_path);
}

std::vector<std::string> CompileFlags::synthesized(const std::string& rel_path) const {
    fs::path rel(rel_path);
    std::string base = rel.stem().string();
    std::replace(base.begin(), base.end(), '-', '_');
    std::vector<std::string> args{"-nostdinc",
                                  "-std=gnu11",
                                  "-Wno-everything",
                                  "-ferror-limit=1",
                                  "-fno-caret-diagnostics",
                                  "-fno-strict-aliasing",
                                  "-fno-common"};
    if (!build_dir_.empty())
        args.insert(args.end(), {"-D__KERNEL__", "-DMODULE"});
    if (!build_dir_.empty() && arch_ == "x86")
        args.insert(args.end(),
                    {"--target=x86_64-linux-gnu", "-mno-red-zone", "-mcmodel=kernel", "-fno-PIE",
                     // kbuild's -mfentry; asm/ftrace.h refuses to build without it
                     "-DCC_USING_FENTRY"});
    args.push_back("-DKBUILD_MODNAME=\"" + base + "\"");
    args.push_back("-DKBUILD_BASENAME=\"" + base + "\"");
    // "tpm.h"-style includes of the file's own directory (kbuild: -I$(srctree)/$(src)).
    args.push_back("-I" + (fs::path(tree_) / rel.parent_path()).string());
    for (const auto& dir : include_dirs_)
        args.push_back("-I" + dir);
    for (const auto& header : forced_includes_) {
        args.push_back("-include");
        args.push_back(header);
    }
    // ccflags-y and the like of the Makefile that builds the file: after LINUXINCLUDE, as in
    // kbuild's command line.
    for (auto& flag : kbuild_->for_file(rel_path))
        args.push_back(std::move(flag));
    return args;
}

} // namespace ksweep
