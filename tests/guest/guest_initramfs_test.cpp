// The initramfs pieces: the cpio writer (checked by extracting with GNU cpio), gzip, the
// static-executable check, and choosing the image modules from modules.dep.
#include "core/file_io.h"
#include "core/process.h"
#include "guest/guest_initramfs.h"
#include "require_env.h"
#include "test_files.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::validate {

using namespace ksweep::guest;
namespace {

constexpr const char* kTempPrefix = "ksweep-initramfs-test";

using test::write_file;

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

CommandResult shell(const std::string& script, const fs::path& cwd) {
    return run_command({"sh", "-c", script}, cwd.string(), std::chrono::seconds(30));
}

TEST(CpioWriter, GnuCpioExtractsWhatItWrites) {
    TempDir dir{kTempPrefix};
    CpioWriter cpio;
    cpio.add_directory("bin");
    cpio.add_file("bin/tool", "#!/bin/sh\necho hi\n", 0755);
    cpio.add_symlink("bin/sh", "tool");
    cpio.add_file("odd-size", std::string(5, 'x')); // exercises the 4-byte padding
    cpio.add_file("empty", "");
    write_file(dir.path() / "a.cpio", cpio.finish());

    auto r = shell("mkdir out && cd out && cpio -idm --quiet < ../a.cpio", dir.path());
    ASSERT_EQ(r.status, 0) << r.output;
    fs::path out = dir.path() / "out";
    EXPECT_EQ(read(out / "bin/tool"), "#!/bin/sh\necho hi\n");
    EXPECT_TRUE((fs::status(out / "bin/tool").permissions() & fs::perms::owner_exec) !=
                fs::perms::none);
    EXPECT_TRUE(fs::is_symlink(out / "bin/sh"));
    EXPECT_EQ(fs::read_symlink(out / "bin/sh"), "tool");
    EXPECT_EQ(read(out / "odd-size"), "xxxxx");
    EXPECT_TRUE(fs::exists(out / "empty"));
}

TEST(CpioWriter, SameContentsSameBytes) {
    auto make = [] {
        CpioWriter cpio;
        cpio.add_file("init", "x", 0755);
        return cpio.finish();
    };
    EXPECT_EQ(make(), make());
}

TEST(Gzip, RoundTripsThroughGzip) {
    TempDir dir{kTempPrefix};
    std::string data;
    for (int i = 0; i < 10000; ++i)
        data += std::to_string(i) + "\n";
    write_file(dir.path() / "d.gz", gzip_compress(data));
    auto r = shell("gzip -dc d.gz", dir.path());
    ASSERT_EQ(r.status, 0);
    EXPECT_EQ(r.output, data);
}

TEST(StaticExecutable, TellsStaticFromDynamic) {
    EXPECT_FALSE(is_static_executable("/bin/sh")); // dash: dynamically linked
    EXPECT_FALSE(is_static_executable("/nonexistent"));
    EXPECT_FALSE(is_static_executable("/etc/passwd"));
    if (!fs::exists("/bin/busybox"))
        KSWEEP_SKIP_OR_FAIL("busybox-static not installed");
    EXPECT_TRUE(is_static_executable("/bin/busybox"));
}

TEST(Initramfs, HoldsInitBusyboxProgramAndModulesInOrder) {
    if (!is_static_executable("/bin/busybox"))
        KSWEEP_SKIP_OR_FAIL("busybox-static not installed");
    TempDir dir{kTempPrefix};
    write_file(dir.path() / "init.sh", "#!/bin/sh\n");
    std::string elf = std::string("\x7f"
                                  "ELF",
                                  4) +
                      "module";
    write_file(dir.path() / "mods/b.ko", elf);
    write_file(dir.path() / "mods/a.ko", elf);

    InitramfsContents contents;
    contents.init_script = (dir.path() / "init.sh").string();
    contents.extend_program = "/bin/busybox"; // any static executable will do here
    contents.op_program = "/bin/busybox";
    contents.modules = {(dir.path() / "mods/b.ko").string(), (dir.path() / "mods/a.ko").string()};
    std::string first = build_initramfs(contents, (dir.path() / "cache").string());
    EXPECT_EQ(build_initramfs(contents, (dir.path() / "cache").string()), first); // cached

    auto r =
        shell("mkdir out && cd out && gzip -dc '" + first + "' | cpio -idm --quiet", dir.path());
    ASSERT_EQ(r.status, 0) << r.output;
    fs::path out = dir.path() / "out";
    EXPECT_EQ(read(out / "init"), "#!/bin/sh\n");
    EXPECT_TRUE(fs::is_symlink(out / "bin/sh"));
    EXPECT_TRUE(fs::exists(out / "bin/tpm_extend"));
    EXPECT_TRUE(fs::exists(out / "bin/ksweep_op"));
    EXPECT_EQ(read(out / "lib/modules/a.ko"), elf);
    EXPECT_EQ(read(out / "lib/modules/load.order"), "b.ko\na.ko\n");

    contents.extend_program = "/bin/sh"; // dynamic: it would not run in the guest
    EXPECT_THROW(build_initramfs(contents, (dir.path() / "cache").string()), std::runtime_error);
    contents.extend_program = "/bin/busybox";
    contents.op_program = "/bin/sh";
    EXPECT_THROW(build_initramfs(contents, (dir.path() / "cache").string()), std::runtime_error);
}

} // namespace
} // namespace ksweep::validate
