// How the semantic engine compiles a file: the command from compile_commands.json when the
// build or tree has one, else kbuild's flags synthesized for a prepared build/headers
// directory (Debian's linux-headers-<ver>-<flavour> plus its -common sibling), else a plain
// C parse against the tree's include dirs (enough for small self-contained trees). Synthesized
// flags end with what the file's Makefiles add (kbuild_flags.h: per-directory -I, -D, ...).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace clang::tooling {
class CompilationDatabase;
}

namespace ksweep {

namespace kbuild {
class KbuildFlags;
}

class CompileFlags {
  public:
    CompileFlags(std::string tree, std::string build_dir);
    ~CompileFlags();
    CompileFlags(CompileFlags&&) noexcept;

    // Arguments after the compiler name, without the file itself. `rel_path` is tree-relative.
    std::vector<std::string> for_file(const std::string& rel_path) const;

    // "compile_commands.json (path)", "kbuild flags for DIR" or "plain".
    std::string describe() const;

  private:
    std::vector<std::string> synthesized(const std::string& rel_path) const;

    std::string tree_, build_dir_, arch_, database_path_;
    std::unique_ptr<clang::tooling::CompilationDatabase> database_;
    std::vector<std::string> include_dirs_; // -I order, tree first
    std::vector<std::string> forced_includes_;
    std::unique_ptr<kbuild::KbuildFlags> kbuild_; // per-directory flags from the tree's Makefiles
};

} // namespace ksweep
