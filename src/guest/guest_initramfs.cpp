#include "guest/guest_initramfs.h"

#include "core/file_io.h"
#include "core/sha256.h"

#include <cstdio>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <zlib.h>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

void pad_to_4(std::string& s) {
    s.append((4 - s.size() % 4) % 4, '\0');
}

std::string read_whole(const std::string& path, const char* what) {
    auto bytes = read_file(path);
    if (!bytes)
        throw std::runtime_error(std::string("cannot read ") + what + " '" + path + "'");
    return std::move(*bytes);
}

} // namespace

void CpioWriter::add_entry(std::string_view path, std::uint32_t mode, std::string_view data,
                           std::uint32_t rdev_major, std::uint32_t rdev_minor) {
    char header[111];
    std::uint32_t fields[13] = {next_inode_++,
                                mode,
                                0, // uid
                                0, // gid
                                (mode & S_IFMT) == S_IFDIR ? 2u : 1u,
                                0, // mtime
                                static_cast<std::uint32_t>(data.size()),
                                0,
                                0, // dev major, minor
                                rdev_major,
                                rdev_minor,
                                static_cast<std::uint32_t>(path.size() + 1),
                                0}; // check (unused by newc)
    std::snprintf(header, sizeof header, "070701");
    for (int i = 0; i < 13; ++i)
        std::snprintf(header + 6 + 8 * i, 9, "%08X", fields[i]);
    archive_.append(header, 110);
    archive_.append(path);
    archive_ += '\0';
    pad_to_4(archive_);
    archive_.append(data);
    pad_to_4(archive_);
}

void CpioWriter::add_directory(std::string_view path, std::uint32_t mode) {
    add_entry(path, S_IFDIR | mode, {});
}

void CpioWriter::add_file(std::string_view path, std::string_view content, std::uint32_t mode) {
    add_entry(path, S_IFREG | mode, content);
}

void CpioWriter::add_symlink(std::string_view path, std::string_view target) {
    add_entry(path, S_IFLNK | 0777, target);
}

void CpioWriter::add_char_device(std::string_view path, std::uint32_t major, std::uint32_t minor,
                                 std::uint32_t mode) {
    add_entry(path, S_IFCHR | mode, {}, major, minor);
}

std::string CpioWriter::finish() {
    add_entry("TRAILER!!!", 0, {});
    next_inode_ = 1;
    return std::exchange(archive_, {});
}

std::string gzip_compress(std::string_view data) {
    z_stream z{};
    // windowBits 15 + 16: a gzip wrapper; zlib writes mtime 0 and no name.
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("zlib: deflateInit2 failed");
    std::string out(deflateBound(&z, data.size()), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        throw std::runtime_error("zlib: deflate failed");
    return out;
}

bool is_static_executable(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    Elf64_Ehdr eh{};
    if (!in.read(reinterpret_cast<char*>(&eh), sizeof eh) ||
        std::string_view(reinterpret_cast<char*>(eh.e_ident), 4) != ELFMAG ||
        eh.e_ident[EI_CLASS] != ELFCLASS64)
        return false;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph{};
        in.seekg(static_cast<std::streamoff>(eh.e_phoff + i * eh.e_phentsize));
        if (!in.read(reinterpret_cast<char*>(&ph), sizeof ph))
            return false;
        if (ph.p_type == PT_INTERP)
            return false;
    }
    return true;
}

std::string build_initramfs(const InitramfsContents& contents, const std::string& cache_dir) {
    for (const auto& [path, what] : {std::pair{contents.busybox, "busybox"},
                                     std::pair{contents.extend_program, "extend program"},
                                     std::pair{contents.op_program, "operation program"}})
        if (!is_static_executable(path))
            throw std::runtime_error(std::string("the ") + what + " '" + path +
                                     "' is missing or not a static executable (the initramfs "
                                     "has no C library; install busybox-static)");

    CpioWriter cpio;
    for (const char* dir : {"bin", "dev", "proc", "sys", "tmp", "lib", "lib/modules"})
        cpio.add_directory(dir);
    // init's first stdin/stdout, before it mounts devtmpfs.
    cpio.add_char_device("dev/console", 5, 1);
    cpio.add_file("bin/busybox", read_whole(contents.busybox, "busybox"), 0755);
    cpio.add_symlink("bin/sh", "busybox");
    cpio.add_file("init", read_whole(contents.init_script, "init script"), 0755);
    cpio.add_file("bin/tpm_extend", read_whole(contents.extend_program, "extend program"), 0755);
    cpio.add_file("bin/ksweep_op", read_whole(contents.op_program, "operation program"), 0755);
    std::string load_order;
    for (const auto& module : contents.modules) {
        std::string name = fs::path(module).filename().string();
        cpio.add_file("lib/modules/" + name, read_whole(module, "module"));
        load_order += name + "\n";
    }
    cpio.add_file("lib/modules/load.order", load_order);
    if (!contents.bind_module.empty()) {
        cpio.add_directory("lib/modules/bind");
        cpio.add_file("lib/modules/bind/" + fs::path(contents.bind_module).filename().string(),
                      read_whole(contents.bind_module, "bind module"));
    }
    std::string archive = cpio.finish();

    fs::path path = fs::path(cache_dir) / (to_hex(sha256(archive)).substr(0, 20) + ".cpio.gz");
    if (fs::exists(path))
        return path.string();
    fs::create_directories(cache_dir);
    // Write then rename: a concurrent run never sees half an archive.
    fs::path tmp = path;
    tmp += ".tmp." + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << gzip_compress(archive);
        if (!out)
            throw std::runtime_error("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
    return path.string();
}

} // namespace ksweep::guest
