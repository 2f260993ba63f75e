// Which kernel image the guest boots: the PVH-capable ELF vmlinux when it can be had, else the
// compressed bzImage with a note. Synthetic ELF files and a stand-in extract script: no kernel.
#include "core/file_io.h"
#include "guest/guest_kernel.h"

#include <algorithm>
#include <chrono>
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
    fs::path vmlinuz() const { return dir.path() / "vmlinuz-6.1.0-99-amd64"; }
    fs::path tree() const { return dir.path() / "tree"; }
    fs::path cache() const { return dir.path() / "cache"; }
    fs::path pvh_elf() const { return dir.path() / "pvh.elf"; }

    void SetUp() override {
        write(vmlinuz(), {'M', 'Z', 'b', 'z'});
        write(pvh_elf(), elf_with_note(18));
        fs::create_directories(tree() / "scripts");
    }
    // The tree's extract-vmlinux stand-in: prints `elf` to stdout, counting its runs.
    void extract_script_prints(const fs::path& elf) {
        fs::path script = tree() / "scripts/extract-vmlinux";
        std::ofstream(script) << "#!/bin/sh\necho run >> " << (dir.path() / "runs").string()
                              << "\ncat " << elf.string() << "\n";
        fs::permissions(script, fs::perms::owner_all);
    }
    size_t extract_runs() const {
        std::string runs = read_file(dir.path() / "runs").value_or("");
        return static_cast<size_t>(std::count(runs.begin(), runs.end(), '\n'));
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

TEST_F(GuestKernelTest, ExtractsOnceAndBootsTheCachedVmlinux) {
    extract_script_prints(pvh_elf());
    GuestKernel first = guest_kernel(vmlinuz(), tree(), cache());
    EXPECT_EQ(first.image, (cache() / "vmlinux-6.1.0-99-amd64").string());
    EXPECT_EQ(first.note, "");
    EXPECT_TRUE(has_pvh_entry(first.image));
    GuestKernel second = guest_kernel(vmlinuz(), tree(), cache());
    EXPECT_EQ(second.image, first.image);
    EXPECT_EQ(extract_runs(), 1u) << "the cached vmlinux is reused";
}

TEST_F(GuestKernelTest, NewerVmlinuzIsExtractedAgain) {
    extract_script_prints(pvh_elf());
    guest_kernel(vmlinuz(), tree(), cache());
    fs::last_write_time(vmlinuz(), fs::file_time_type::clock::now() + std::chrono::hours(1));
    guest_kernel(vmlinuz(), tree(), cache());
    EXPECT_EQ(extract_runs(), 2u);
}

TEST_F(GuestKernelTest, WithoutTheScriptTheCompressedImageBootsWithANote) {
    GuestKernel k = guest_kernel(vmlinuz(), dir.path() / "no-tree", cache());
    EXPECT_EQ(k.image, vmlinuz().string());
    EXPECT_NE(k.note.find("extract-vmlinux"), std::string::npos) << k.note;
}

TEST_F(GuestKernelTest, AKernelWithoutPvhIsNotCached) {
    fs::path plain = dir.path() / "plain.elf";
    write(plain, elf_with_note(17));
    extract_script_prints(plain);
    GuestKernel k = guest_kernel(vmlinuz(), tree(), cache());
    EXPECT_EQ(k.image, vmlinuz().string());
    EXPECT_NE(k.note.find("no PVH note"), std::string::npos) << k.note;
    EXPECT_FALSE(fs::exists(cache() / "vmlinux-6.1.0-99-amd64"));
    EXPECT_FALSE(fs::exists(cache() / "vmlinux-6.1.0-99-amd64.tmp"));
}

} // namespace
} // namespace ksweep::validate
