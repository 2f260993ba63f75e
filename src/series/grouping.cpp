#include "series/grouping.h"

#include "core/file_io.h"
#include "kbuild/modules.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace ksweep::series {

namespace {

// What one Makefile/Kbuild builds: modules named by obj-... lines, and the objects each
// composite module is made of.
struct Makefile {
    std::vector<std::string> modules;                          // "tpm", "tpm_nsc"
    std::map<std::string, std::vector<std::string>> composite; // "tpm" -> {"tpm-chip.o", ...}
};

std::string dir_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string stem_of(const std::string& path) {
    std::string name = path.substr(path.rfind('/') + 1);
    return name.substr(0, name.rfind('.'));
}

Makefile read_makefile(const std::string& dir) {
    Makefile mk;
    for (const char* name : {"Kbuild", "Makefile"}) {
        auto text = read_file(dir + "/" + name);
        if (!text)
            continue;
        // obj-y, obj-m, obj-$(CONFIG_FOO): modules; foo-y, foo-objs, foo-$(CONFIG_BAR): the
        // objects of composite foo (kbuild's parser reads module names with dashes too).
        for (const auto& a : kbuild::parse_kbuild_makefile(*text)) {
            std::vector<std::string> objects;
            for (const auto& word : a.words)
                if (word.size() > 2 && word.ends_with(".o"))
                    objects.push_back(word);
            if (a.target == "obj") {
                for (const auto& o : objects)
                    mk.modules.push_back(o.substr(0, o.size() - 2));
            } else {
                auto& members = mk.composite[a.target];
                members.insert(members.end(), objects.begin(), objects.end());
            }
        }
        break; // Kbuild takes precedence over Makefile, as in kbuild itself
    }
    return mk;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

bool is_header(const std::string& path) {
    return path.size() > 2 && path.compare(path.size() - 2, 2, ".h") == 0;
}

} // namespace

std::optional<GroupBy> parse_group_by(const std::string& name) {
    if (name == "driver")
        return GroupBy::Driver;
    if (name == "file")
        return GroupBy::File;
    if (name == "dir")
        return GroupBy::Dir;
    if (name == "maintainer")
        return GroupBy::Maintainer;
    return std::nullopt;
}

std::optional<ModuleOf> module_of(const std::string& tree, const std::string& file) {
    std::string dir = dir_of(file);
    if (is_header(file)) {
        // A header beside the sources of one module belongs to it, as does foo.h to foo.c.
        Makefile mk = read_makefile(tree + "/" + dir);
        if (mk.modules.size() == 1)
            return ModuleOf{mk.modules.front(), dir};
        std::string source = dir + "/" + stem_of(file) + ".c";
        if (fs::exists(tree + "/" + source))
            return module_of(tree, source);
        return std::nullopt;
    }
    // A composite in this directory or up to two above may list the file's object.
    std::string up = dir;
    for (int level = 0; level < 3 && !up.empty(); ++level) {
        Makefile mk = read_makefile(tree + "/" + up);
        std::string rel = file.substr(up.size() + 1);
        std::string object = rel.substr(0, rel.rfind('.')) + ".o";
        for (const auto& [module, members] : mk.composite)
            if (contains(members, object) && contains(mk.modules, module))
                return ModuleOf{module, up};
        if (level == 0 && contains(mk.modules, stem_of(file)))
            return ModuleOf{stem_of(file), up};
        up = dir_of(up);
    }
    return std::nullopt;
}

std::vector<PatchGroup> group_files(const std::string& tree, const std::vector<std::string>& files,
                                    GroupBy by, const Maintainers* maintainers) {
    std::vector<PatchGroup> groups;
    std::map<std::string, size_t> index_of;
    for (size_t i = 0; i < files.size(); ++i) {
        const std::string& f = files[i];
        PatchGroup g;
        switch (by) {
        case GroupBy::File:
            g.key = "file " + f;
            break;
        case GroupBy::Dir:
            g.key = "dir " + dir_of(f);
            break;
        case GroupBy::Maintainer: {
            auto sections = maintainers ? maintainers->sections_for(f)
                                        : std::vector<const MaintainerSection*>{};
            g.key = sections.empty() ? "dir " + dir_of(f) : "section " + sections.front()->name;
            break;
        }
        case GroupBy::Driver:
            if (auto m = module_of(tree, f)) {
                g.key = "module " + m->dir + "/" + m->name;
                g.module = m->name;
                g.module_dir = m->dir;
            } else {
                g.key = "file " + f;
            }
            break;
        }
        auto [it, inserted] = index_of.emplace(g.key, groups.size());
        if (inserted)
            groups.push_back(std::move(g));
        groups[it->second].files.push_back(i);
    }
    return groups;
}

} // namespace ksweep::series
