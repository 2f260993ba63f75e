// L3's question "which module does this file build into, and does the config build it?",
// answered the way kbuild does: the directory's Makefile (obj-$(CONFIG_FOO) += foo.o, and the
// composite foo-y / foo-objs / foo-$(CONFIG_BAR) lists) and the headers' .config.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::kbuild {

struct KbuildModule {
    std::string name;      // "tpm_st33zp24"
    std::string directory; // tree-relative directory of the Makefile that defines it
    std::string config;    // "CONFIG_TCG_TIS_ST33ZP24"; "" for obj-y / obj-m
    char fixed = 0;        // 'y' or 'm' for obj-y / obj-m without a config symbol
    // The Makefile lines a Kbuild for this module alone needs: its composite object lists
    // and the flags lines (ccflags-y, CFLAGS_x.o), as written.
    std::vector<std::string> kbuild_lines;
};

// One assignment of a kbuild Makefile: "<target>-<suffix> <op> <words>".
struct KbuildAssignment {
    std::string target; // "obj", "tpm", "tpm_tis_spi"
    std::string suffix; // "y", "m", "objs", or a config symbol "CONFIG_ACPI"
    std::vector<std::string> words;
    std::string text; // the joined line as written
};

// Continuation lines joined, comments dropped, conditionals (ifdef, ifeq) ignored.
std::vector<KbuildAssignment> parse_kbuild_makefile(std::string_view makefile);
// Flag lines kept verbatim for a generated Kbuild: ccflags-*, CFLAGS_*, subdir-ccflags-*.
std::vector<std::string> kbuild_flag_lines(std::string_view makefile);

// The module `object` ("tpm_ppi.o", or "eventlog/efi.o" seen from the parent) belongs to in
// this Makefile: a composite that lists it, else an obj- target of its own name.
std::optional<KbuildModule> module_in_makefile(std::string_view makefile,
                                               const std::string& object);

// For a tree-relative .c file: its directory's Makefile first, then up to two parents (a file
// in eventlog/ may be listed by ../Makefile as eventlog/x.o). `read` returns a Makefile's text
// by tree-relative path, nullopt when absent.
using FileReader = std::optional<std::string> (*)(const std::string& root, const std::string& rel);
std::optional<KbuildModule> find_module(const std::string& root, const std::string& source,
                                        FileReader read);

// The module called `name` ("tpm_st33zp24") that the Makefile (or Kbuild) of tree-relative
// `directory` defines; nullopt when it defines none of that name.
std::optional<KbuildModule> find_module_named(const std::string& root, const std::string& directory,
                                              const std::string& name, FileReader read);

// The objects a module links, relative to its directory: its composite lists (conditions taken
// as enabled), or "<name>.o" for a module of one file.
std::vector<std::string> module_objects(const KbuildModule& module);

using KernelConfig = std::map<std::string, std::string>; // CONFIG_X -> "m", "y", "\"str\"", ...

// A .config or include/config/auto.conf; "# CONFIG_X is not set" lines leave X out.
KernelConfig parse_kernel_config(std::string_view text);

// "m", "y", or "" (not set): what the config builds the module as.
std::string module_config_value(const KbuildModule& module, const KernelConfig& config);

// Reads a file below `root`; the default FileReader.
std::optional<std::string> read_tree_file(const std::string& root, const std::string& rel);

} // namespace ksweep::kbuild
