// The validation guest's kernel configuration, made with the tree's own kbuild: `make O=DIR
// tinyconfig`, then the tree's scripts/kconfig/merge_config.sh merges qemu/guest.config and a
// one-line HZ fragment onto it, then `make O=DIR olddefconfig`. merge_config.sh only prints a
// warning when a symbol did not take its value; here every one must, or configuring stops and
// names it (a symbol the tree lacks, or one whose dependencies are unmet).
#pragma once

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::guest {

class GuestBuildError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The HZ values x86's kernel/Kconfig.hz offers.
bool is_supported_hz(int hz);

// "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n". Throws GuestBuildError for an HZ Kconfig does not offer.
std::string hz_fragment(int hz);

struct UnmetSymbol {
    std::string symbol;    // "CONFIG_I2C_VIRTIO"
    std::string requested; // "y"
    std::string actual;    // "" when the final .config does not have it at all
    bool in_tree = true;   // false: no Kconfig file of the tree defines it
};

// The fragment lines (`CONFIG_X=v`, `# CONFIG_X is not set`) whose value the final .config does
// not have. A symbol asked to be off counts as met when the final .config lacks it. `defined`
// says whether the tree's Kconfig knows a symbol (asked only for unmet ones).
std::vector<UnmetSymbol> unmet_symbols(const std::string& fragment, const std::string& final_config,
                                       const std::function<bool(const std::string&)>& defined);

// "CONFIG_FOO=y requested, not in the final .config: the tree has no such symbol"; one line each.
std::string describe_unmet(const std::vector<UnmetSymbol>& unmet, const std::string& fragment_name);

// True if a Kconfig* file of `tree` has `config NAME` or `menuconfig NAME` (NAME without the
// CONFIG_ prefix or with it).
bool tree_defines_symbol(const std::filesystem::path& tree, const std::string& symbol);

// The make variables every guest kernel make runs with: `CC=ccache gcc` when ccache is on PATH
// (a second HZ changes autoconf.h, so every object is out of date, but ccache's preprocessor mode
// still serves each file whose preprocessed text did not change: most of them), else none.
std::vector<std::string> guest_compiler_vars();

// Writes DIR/.config for the guest as described above (logs in DIR). Throws GuestBuildError with
// make's error lines, or with every fragment symbol that did not take its value.
void configure_guest(const std::string& tree, const std::filesystem::path& dir,
                     const std::string& fragment_path, int hz,
                     const std::function<void(const std::string&)>& on_progress);

} // namespace ksweep::guest
