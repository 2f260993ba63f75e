#include "guest/guest_config.h"

#include "core/file_io.h"
#include "core/process.h"
#include "kbuild/kbuild_make.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

// symbol -> value: "y", "m", "250", "\"text\"", or "n" for `# CONFIG_X is not set`.
std::map<std::string, std::string> config_values(const std::string& text) {
    static const std::regex kSet(R"(^(CONFIG_[A-Za-z0-9_]+)=(.*)$)");
    static const std::regex kUnset(R"(^# (CONFIG_[A-Za-z0-9_]+) is not set$)");
    std::map<std::string, std::string> values;
    std::istringstream in(text);
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
        if (std::regex_match(line, m, kSet))
            values[m[1]] = m[2];
        else if (std::regex_match(line, m, kUnset))
            values[m[1]] = "n";
    }
    return values;
}

void make_step(std::vector<std::string> args, const std::string& tree, const fs::path& dir,
               const std::string& log_name) {
    std::vector<std::string> vars = guest_compiler_vars();
    args.insert(args.end() - 1, vars.begin(), vars.end());
    kbuild::MakeRun run = kbuild::run_make(args, tree, (dir / log_name).string());
    if (run.status != 0)
        throw GuestBuildError("configuring the guest kernel failed: make " + args.back() +
                              " exited " + std::to_string(run.status) + " (log " + run.log_path +
                              "):\n" + run.errors);
}

} // namespace

std::vector<std::string> guest_compiler_vars() {
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "");
    for (std::string dir; std::getline(dirs, dir, ':');)
        if (!dir.empty() && access((fs::path(dir) / "ccache").c_str(), X_OK) == 0)
            return {"CC=ccache gcc"};
    return {};
}

bool is_supported_hz(int hz) {
    return hz == 100 || hz == 250 || hz == 300 || hz == 1000;
}

std::string hz_fragment(int hz) {
    if (!is_supported_hz(hz))
        throw GuestBuildError("HZ=" + std::to_string(hz) +
                              " is not one x86's Kconfig offers (100, 250, 300, 1000)");
    return "CONFIG_HZ_" + std::to_string(hz) + "=y\nCONFIG_HZ=" + std::to_string(hz) + "\n";
}

std::vector<UnmetSymbol> unmet_symbols(const std::string& fragment, const std::string& final_config,
                                       const std::function<bool(const std::string&)>& defined) {
    std::map<std::string, std::string> final_values = config_values(final_config);
    std::vector<UnmetSymbol> unmet;
    for (const auto& [symbol, requested] : config_values(fragment)) {
        auto it = final_values.find(symbol);
        std::string actual = it == final_values.end() ? "" : it->second;
        if (actual == requested || (requested == "n" && actual.empty()))
            continue;
        unmet.push_back({symbol, requested, actual, defined(symbol)});
    }
    return unmet;
}

std::string describe_unmet(const std::vector<UnmetSymbol>& unmet,
                           const std::string& fragment_name) {
    std::string text;
    for (const auto& u : unmet) {
        text += "  " + u.symbol + "=" + u.requested + " (" + fragment_name + ") ";
        if (!u.in_tree)
            text += "is not a symbol of this tree (no Kconfig defines it)";
        else if (u.actual.empty() || u.actual == "n")
            text += "did not take its value: its dependencies are unmet in this tree";
        else
            text += "became " + u.actual + ": its dependencies or selects allow only that";
        text += "\n";
    }
    return text;
}

bool tree_defines_symbol(const fs::path& tree, const std::string& symbol) {
    std::string name = symbol.rfind("CONFIG_", 0) == 0 ? symbol.substr(7) : symbol;
    const std::regex definition("^[ \t]*(menu)?config[ \t]+" + name + "[ \t]*$",
                                std::regex::multiline);
    std::error_code ec;
    for (fs::recursive_directory_iterator it(tree, ec), end; it != end; it.increment(ec)) {
        if (ec)
            break;
        const fs::path& path = it->path();
        if (it->is_directory() && path.filename().string().front() == '.') {
            it.disable_recursion_pending();
            continue;
        }
        if (path.filename().string().rfind("Kconfig", 0) != 0 || !it->is_regular_file())
            continue;
        if (auto text = read_file(path);
            text && text->find(name) != std::string::npos && std::regex_search(*text, definition))
            return true;
    }
    return false;
}

void configure_guest(const std::string& tree, const fs::path& dir, const std::string& fragment_path,
                     int hz, const std::function<void(const std::string&)>& on_progress) {
    auto fragment = read_file(fragment_path);
    if (!fragment)
        throw GuestBuildError("cannot read the guest's config fragment " + fragment_path);
    const fs::path hz_path = dir / "ksweep-hz.config";
    std::ofstream(hz_path) << hz_fragment(hz);
    const std::string out = "O=" + dir.string();
    if (on_progress)
        on_progress("configuring: tinyconfig + " + fragment_path + " + HZ=" + std::to_string(hz));
    make_step({"-C", tree, out, "tinyconfig"}, tree, dir, "config-tinyconfig.log");
    // -m: merge only; olddefconfig below resolves what the fragments leave open.
    CommandResult merge =
        run_command({(fs::path(tree) / "scripts/kconfig/merge_config.sh").string(), "-m", "-O",
                     dir.string(), (dir / ".config").string(), fragment_path, hz_path.string()},
                    dir.string(), std::chrono::seconds(120));
    std::ofstream(dir / "config-merge.log") << merge.output;
    if (merge.status != 0)
        throw GuestBuildError("merge_config.sh failed (status " + std::to_string(merge.status) +
                              ", log " + (dir / "config-merge.log").string() + "):\n" +
                              kbuild::make_error_lines(merge.output));
    make_step({"-C", tree, out, "olddefconfig"}, tree, dir, "config-olddefconfig.log");

    std::string final_config = read_file(dir / ".config").value_or("");
    auto defined = [&](const std::string& symbol) { return tree_defines_symbol(tree, symbol); };
    std::vector<UnmetSymbol> unmet = unmet_symbols(*fragment, final_config, defined);
    std::vector<UnmetSymbol> unmet_hz = unmet_symbols(hz_fragment(hz), final_config, defined);
    if (!unmet.empty() || !unmet_hz.empty())
        throw GuestBuildError("the guest kernel's config does not have what the guest needs (" +
                              std::to_string(unmet.size() + unmet_hz.size()) + " symbol(s); " +
                              (dir / ".config").string() + "):\n" +
                              describe_unmet(unmet, fragment_path) +
                              describe_unmet(unmet_hz, "HZ=" + std::to_string(hz)));
}

} // namespace ksweep::guest
