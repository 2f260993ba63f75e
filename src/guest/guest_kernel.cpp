#include "guest/guest_kernel.h"

#include <cstdint>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

// Xen's public ELF note for the 32-bit PVH entry point (xen/include/public/elfnote.h), which
// the kernel emits from arch/x86/platform/pvh/head.S and QEMU looks for.
constexpr uint32_t kXenElfNotePhys32Entry = 18;

template <typename T> bool read_at(std::ifstream& in, uint64_t offset, T& out) {
    in.seekg(static_cast<std::streamoff>(offset));
    return static_cast<bool>(in.read(reinterpret_cast<char*>(&out), sizeof out));
}

// Walks one PT_NOTE segment: {namesz, descsz, type} headers, name and desc 4-byte aligned.
bool notes_have_pvh_entry(std::ifstream& in, uint64_t offset, uint64_t size) {
    auto align4 = [](uint64_t n) { return (n + 3) & ~uint64_t{3}; };
    for (uint64_t at = 0; at + sizeof(Elf64_Nhdr) <= size;) {
        Elf64_Nhdr note;
        if (!read_at(in, offset + at, note))
            return false;
        at += sizeof note;
        char name[4] = {};
        if (note.n_namesz == 4 && !read_at(in, offset + at, name))
            return false;
        if (note.n_namesz == 4 && std::memcmp(name, "Xen", 4) == 0 &&
            note.n_type == kXenElfNotePhys32Entry)
            return true;
        at += align4(note.n_namesz) + align4(note.n_descsz);
    }
    return false;
}

} // namespace

bool has_pvh_entry(const fs::path& elf) {
    std::ifstream in(elf, std::ios::binary);
    Elf64_Ehdr header;
    if (!in || !read_at(in, 0, header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
        header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr))
        return false;
    for (unsigned i = 0; i < header.e_phnum; ++i) {
        Elf64_Phdr segment;
        if (!read_at(in, header.e_phoff + uint64_t{i} * sizeof segment, segment))
            return false;
        if (segment.p_type == PT_NOTE &&
            notes_have_pvh_entry(in, segment.p_offset, segment.p_filesz))
            return true;
    }
    return false;
}

} // namespace ksweep::guest
