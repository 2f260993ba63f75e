// The validation guest's initramfs: a gzip'd cpio "newc" archive holding busybox-static, the
// init script (qemu/init.sh), the extend program, the device operation program, the modules to
// load, in order, and the module that binds a chip with its interrupt.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::guest {

// Writes a cpio newc archive in memory, the format the kernel unpacks as an initramfs
// (Documentation/driver-api/early-userspace/buffer-format.rst). Times are 0 and inode numbers
// sequential, so equal contents give equal bytes (and one cache entry).
class CpioWriter {
  public:
    void add_directory(std::string_view path, std::uint32_t mode = 0755);
    void add_file(std::string_view path, std::string_view content, std::uint32_t mode = 0644);
    void add_symlink(std::string_view path, std::string_view target);
    void add_char_device(std::string_view path, std::uint32_t major, std::uint32_t minor,
                         std::uint32_t mode = 0600);
    // Appends the trailer and returns the archive; the writer is empty afterwards.
    std::string finish();

  private:
    void add_entry(std::string_view path, std::uint32_t mode, std::string_view data,
                   std::uint32_t rdev_major = 0, std::uint32_t rdev_minor = 0);

    std::string archive_;
    std::uint32_t next_inode_ = 1;
};

// gzip (RFC 1952) with zlib, no name and no time in the header.
std::string gzip_compress(std::string_view data);

// True if `path` is an ELF executable without a program interpreter (statically linked).
bool is_static_executable(const std::string& path);

struct InitramfsContents {
    std::string busybox = "/bin/busybox"; // must be static (Debian's busybox-static)
    std::string init_script;              // qemu/init.sh
    std::string extend_program;           // the static tpm_extend
    std::string op_program;               // the static ksweep_op
    std::vector<std::string> modules;     // .ko files, in load order
    // The module that creates the I2C client with its interrupt (qemu/bind/), for a boot with
    // the chip's interrupt line: in lib/modules/bind/, not in the load order (init.sh inserts
    // it with the client's parameters). "": none.
    std::string bind_module = {};
};

// Builds (or finds in <cache_dir>) the archive; returns its path. Throws std::runtime_error
// naming what is missing or unusable.
std::string build_initramfs(const InitramfsContents& contents, const std::string& cache_dir);

} // namespace ksweep::guest
