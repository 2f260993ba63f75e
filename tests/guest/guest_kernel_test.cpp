// The guest boots its build's ELF vmlinux through the PVH entry: recognizing the note, on
// synthetic ELF files (no kernel needed).
#include "core/file_io.h"
#include "guest/guest_kernel.h"

#include <cstring>
#include <elf.h>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ksweep::validate {

using namespace ksweep::guest;
namespace {

namespace fs = std::filesystem;

// A minimal ELF64 file: header, one PT_NOTE program header, one note "Xen" of `note_type`.
std::vector<char> elf_with_note(uint32_t note_type) {
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = ELFCLASS64;
    eh.e_ident[EI_DATA] = ELFDATA2LSB;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = ET_EXEC;
    eh.e_machine = EM_X86_64;
    eh.e_version = EV_CURRENT;
    eh.e_phoff = sizeof eh;
    eh.e_ehsize = sizeof eh;
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = 1;
    Elf64_Nhdr nh{4, 8, note_type};
    const char name[4] = {'X', 'e', 'n', '\0'};
    const char desc[8] = {0x50, 0x08, 0x00, 0x01, 0, 0, 0, 0};
    Elf64_Phdr ph{};
    ph.p_type = PT_NOTE;
    ph.p_offset = sizeof eh + sizeof ph;
    ph.p_filesz = sizeof nh + sizeof name + sizeof desc;
    std::vector<char> out;
    auto put = [&](const void* p, size_t n) {
        out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n);
    };
    put(&eh, sizeof eh);
    put(&ph, sizeof ph);
    put(&nh, sizeof nh);
    put(name, sizeof name);
    put(desc, sizeof desc);
    return out;
}

void write(const fs::path& path, const std::vector<char>& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
}

struct GuestKernelTest : ::testing::Test {
    TempDir dir{"ksweep-guest-kernel"};
    fs::path vmlinuz() const { return dir.path() / "vmlinuz-6.1.0-0-test"; }
    fs::path pvh_elf() const { return dir.path() / "pvh.elf"; }

    void SetUp() override {
        write(vmlinuz(), {'M', 'Z', 'b', 'z'});
        write(pvh_elf(), elf_with_note(18));
    }
};

TEST_F(GuestKernelTest, PvhNoteIsRecognized) {
    EXPECT_TRUE(has_pvh_entry(pvh_elf()));
    fs::path other = dir.path() / "other.elf";
    write(other, elf_with_note(17)); // a Xen note, but not the PVH entry
    EXPECT_FALSE(has_pvh_entry(other));
    EXPECT_FALSE(has_pvh_entry(vmlinuz())) << "a bzImage is no ELF";
    auto truncated = elf_with_note(18);
    truncated.resize(truncated.size() - 12);
    write(other, truncated);
    EXPECT_FALSE(has_pvh_entry(other));
    EXPECT_FALSE(has_pvh_entry(dir.path() / "missing"));
}

} // namespace
} // namespace ksweep::validate
