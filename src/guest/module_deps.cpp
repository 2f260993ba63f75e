#include "guest/module_deps.h"

#include "core/file_io.h"
#include "core/strings.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

std::string kernel_name(std::string name) {
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

std::string module_name(const std::string& ko_path) {
    return kernel_name(fs::path(ko_path).stem().string());
}

// The bytes of section `wanted`, from an ELF64 image; "" when there is none.
std::string elf_section(const std::string& image, const char* wanted, const std::string& path) {
    auto fail = [&](const char* why) {
        throw std::runtime_error(path + ": not a 64-bit ELF module (" + why + ")");
    };
    if (image.size() < sizeof(Elf64_Ehdr) || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0 ||
        image[EI_CLASS] != ELFCLASS64)
        fail("no ELF64 header");
    Elf64_Ehdr eh;
    std::memcpy(&eh, image.data(), sizeof eh);
    auto section = [&](unsigned i) {
        Elf64_Shdr sh;
        uint64_t at = eh.e_shoff + uint64_t{i} * eh.e_shentsize;
        if (eh.e_shentsize < sizeof sh || at + sizeof sh > image.size())
            fail("section header outside the file");
        std::memcpy(&sh, image.data() + at, sizeof sh);
        if (sh.sh_type != SHT_NOBITS &&
            (sh.sh_offset > image.size() || sh.sh_size > image.size() - sh.sh_offset))
            fail("section outside the file");
        return sh;
    };
    if (eh.e_shstrndx >= eh.e_shnum)
        fail("no section names");
    Elf64_Shdr names = section(eh.e_shstrndx);
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh = section(i);
        if (sh.sh_name >= names.sh_size)
            continue;
        const char* name = image.data() + names.sh_offset + sh.sh_name;
        size_t room = names.sh_size - sh.sh_name;
        if (strnlen(name, room) < room && std::strcmp(name, wanted) == 0)
            return image.substr(sh.sh_offset, sh.sh_size);
    }
    return "";
}

} // namespace

std::vector<std::string> module_depends(const std::string& ko_path) {
    auto image = read_file(ko_path);
    if (!image)
        throw std::runtime_error("cannot read " + ko_path);
    std::string modinfo = elf_section(*image, ".modinfo", ko_path);
    std::vector<std::string> depends;
    for (size_t at = 0; at < modinfo.size();) {
        size_t end = modinfo.find('\0', at);
        std::string entry = modinfo.substr(at, end == std::string::npos ? end : end - at);
        if (entry.rfind("depends=", 0) == 0) {
            std::string list = entry.substr(8);
            std::replace(list.begin(), list.end(), ',', ' ');
            for (auto& name : split_words(list))
                depends.push_back(name);
        }
        if (end == std::string::npos)
            break;
        at = end + 1;
    }
    return depends;
}

std::vector<std::string> guest_module_dependencies(const std::vector<std::string>& modules,
                                                   const std::string& build_dir) {
    std::map<std::string, std::string> built; // kernel name -> .ko in the guest build
    std::error_code ec;
    for (fs::recursive_directory_iterator it(build_dir, ec), end; it != end; it.increment(ec)) {
        if (ec)
            break;
        if (it->path().extension() == ".ko" && it->is_regular_file())
            built.emplace(module_name(it->path().string()), it->path().string());
    }
    std::vector<std::string> order, given;
    for (const auto& m : modules)
        given.push_back(module_name(m));
    // Depth first: a module's dependencies go before it.
    std::vector<std::string> visiting;
    auto visit = [&](auto&& self, const std::string& ko, const std::string& needed_by) -> void {
        for (const auto& dep : module_depends(ko)) {
            std::string name = kernel_name(dep);
            if (std::find(given.begin(), given.end(), name) != given.end() ||
                std::find(visiting.begin(), visiting.end(), name) != visiting.end())
                continue;
            auto found = built.find(name);
            if (found == built.end())
                throw std::runtime_error(needed_by + " needs module " + dep +
                                         ", which the guest "
                                         "kernel build " +
                                         build_dir +
                                         " did not build (built "
                                         "in, or missing from its config?)");
            if (std::find(order.begin(), order.end(), found->second) != order.end())
                continue;
            visiting.push_back(name);
            self(self, found->second, name);
            visiting.pop_back();
            order.push_back(found->second);
        }
    };
    for (const auto& m : modules)
        visit(visit, m, module_name(m));
    return order;
}

} // namespace ksweep::guest
