#include "kbuild/modules.h"

#include "core/file_io.h"
#include "core/strings.h"
#include "kbuild/makefile_lines.h"

#include <filesystem>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::kbuild {

namespace {

bool lists(const KbuildAssignment& a, const std::string& object) {
    for (const auto& w : a.words)
        if (w == object)
            return true;
    return false;
}

} // namespace

std::vector<KbuildAssignment> parse_kbuild_makefile(std::string_view makefile) {
    static const std::regex kAssignment(
        R"(^\s*([A-Za-z0-9_./-]+?)-(y|m|objs|\$\((CONFIG_[A-Za-z0-9_]+)\))\s*(:=|\+=|\?=|=)\s*(.*)$)");
    std::vector<KbuildAssignment> out;
    for (const auto& line : logical_lines(makefile, EscapedHash::keep)) {
        std::smatch m;
        if (!std::regex_match(line, m, kAssignment))
            continue;
        KbuildAssignment a;
        a.target = m[1];
        a.suffix = m[3].matched ? m[3].str() : m[2].str();
        a.words = split_words(m[5].str());
        a.text = line;
        out.push_back(std::move(a));
    }
    return out;
}

std::vector<std::string> kbuild_flag_lines(std::string_view makefile) {
    static const std::regex kFlags(
        R"(^\s*(ccflags-|subdir-ccflags-|CFLAGS_|CFLAGS_REMOVE_)\S*\s*(:=|\+=|=))");
    std::vector<std::string> out;
    for (const auto& line : logical_lines(makefile, EscapedHash::keep))
        if (std::regex_search(line, kFlags))
            out.push_back(line);
    return out;
}

std::optional<KbuildModule> module_in_makefile(std::string_view makefile,
                                               const std::string& object) {
    auto assignments = parse_kbuild_makefile(makefile);
    auto module_named = [&](const std::string& name) -> std::optional<KbuildModule> {
        for (const auto& a : assignments) {
            if (a.target != "obj" || !lists(a, name + ".o"))
                continue;
            KbuildModule m;
            m.name = name;
            if (a.suffix == "y" || a.suffix == "m")
                m.fixed = a.suffix[0];
            else
                m.config = a.suffix;
            for (const auto& b : assignments)
                if (b.target == name && (b.suffix == "y" || b.suffix == "objs" ||
                                         b.suffix.rfind("CONFIG_", 0) == 0 || b.suffix == "m"))
                    m.kbuild_lines.push_back(b.text);
            for (auto& line : kbuild_flag_lines(makefile))
                m.kbuild_lines.push_back(std::move(line));
            return m;
        }
        return std::nullopt;
    };
    // A composite that lists the object wins: tpm-y += tpm-chip.o makes tpm-chip.c part of tpm.
    for (const auto& a : assignments)
        if (a.target != "obj" && lists(a, object))
            if (auto m = module_named(a.target))
                return m;
    if (object.size() > 2 && object.compare(object.size() - 2, 2, ".o") == 0)
        return module_named(object.substr(0, object.size() - 2));
    return std::nullopt;
}

std::optional<KbuildModule> find_module(const std::string& root, const std::string& source,
                                        FileReader read) {
    fs::path rel(source);
    if (rel.extension() != ".c")
        return std::nullopt;
    fs::path dir = rel.parent_path();
    std::string object = rel.filename().replace_extension(".o").string();
    for (int up = 0; up < 3 && !dir.empty(); ++up) {
        for (const char* name : {"Makefile", "Kbuild"}) {
            auto text = read(root, (dir / name).string());
            if (!text)
                continue;
            if (auto m = module_in_makefile(*text, object)) {
                m->directory = dir.string();
                return m;
            }
        }
        object = (dir.filename() / object).string();
        dir = dir.parent_path();
    }
    return std::nullopt;
}

std::optional<KbuildModule> find_module_named(const std::string& root, const std::string& directory,
                                              const std::string& name, FileReader read) {
    for (const char* makefile : {"Makefile", "Kbuild"}) {
        auto text = read(root, (fs::path(directory) / makefile).string());
        if (!text)
            continue;
        if (auto m = module_in_makefile(*text, name + ".o"); m && m->name == name) {
            m->directory = directory;
            return m;
        }
    }
    return std::nullopt;
}

std::vector<std::string> module_objects(const KbuildModule& module) {
    std::string lines;
    for (const auto& line : module.kbuild_lines)
        lines += line + "\n";
    std::vector<std::string> objects;
    for (const auto& a : parse_kbuild_makefile(lines))
        if (a.target == module.name)
            for (const auto& word : a.words)
                if (word.size() > 2 && word.compare(word.size() - 2, 2, ".o") == 0)
                    objects.push_back(word);
    if (objects.empty())
        objects.push_back(module.name + ".o");
    return objects;
}

KernelConfig parse_kernel_config(std::string_view text) {
    KernelConfig config;
    std::istringstream in{std::string(text)};
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("CONFIG_", 0) != 0)
            continue;
        auto eq = line.find('=');
        if (eq != std::string::npos)
            config[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return config;
}

std::string module_config_value(const KbuildModule& module, const KernelConfig& config) {
    if (module.fixed)
        return std::string(1, module.fixed);
    auto it = config.find(module.config);
    return it == config.end() ? "" : it->second;
}

std::optional<std::string> read_tree_file(const std::string& root, const std::string& rel) {
    fs::path path = fs::path(root) / rel;
    if (!fs::is_regular_file(path))
        return std::nullopt;
    return read_file(path);
}

} // namespace ksweep::kbuild
