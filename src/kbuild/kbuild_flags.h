// The extra preprocessor flags kbuild would pass for one source file: the -I, -D, -U and
// -include of ccflags-y, subdir-ccflags-y and CFLAGS_<object> in the Makefile (or Kbuild file)
// that builds it and in its ancestors, read from the tree without running make. The semantic
// engine adds them when it synthesizes flags (compile_flags.h); a compile_commands.json already
// has them.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::kbuild {

class KbuildFlags {
  public:
    explicit KbuildFlags(std::string tree); // the tree root
    ~KbuildFlags();

    // The flags for a tree-relative file, in kbuild's order: subdir-ccflags-y from the tree
    // root down to the building Makefile's directory, then its ccflags-y (and EXTRA_CFLAGS),
    // then CFLAGS_<object>. Include paths are absolute. Empty when no Makefile builds the
    // file's directory. Safe to call from several threads.
    std::vector<std::string> for_file(const std::string& rel_path) const;

    // The tree-relative directory of the Makefile that builds the file ("." for the tree
    // root), or nullopt when none does.
    std::optional<std::string> owner(const std::string& rel_path) const;

    // Kbuild files and Makefiles read so far, includes counted: each directory's once.
    std::size_t files_read() const;

    struct Makefile; // what one directory's kbuild file says (kbuild_flags.cpp)

  private:
    // The directory's kbuild file, read and evaluated once. Call with mutex_ held.
    const Makefile& makefile(const std::string& dir) const;
    std::optional<std::string> owner_locked(const std::string& rel_path, std::string* object) const;

    std::string tree_;
    mutable std::mutex mutex_;
    mutable std::map<std::string, std::unique_ptr<const Makefile>> cache_;
    mutable std::size_t files_read_ = 0;
};

} // namespace ksweep::kbuild
