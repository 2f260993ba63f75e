// Small file helpers shared by every component.
#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ksweep {

// The whole file, byte for byte (binary mode: NUL bytes and "\r\n" survive); nullopt when it
// cannot be opened. Callers that need an error say so in their own words.
std::optional<std::string> read_file(const std::filesystem::path& path);

// Writes `text` to a temporary file beside `path`, then renames it over `path`: a reader sees
// the old file or the whole new one, never a torn one. False (and no temporary left) when
// either step fails.
bool write_file_whole(const std::filesystem::path& path, std::string_view text);

// Outside input larger than its reader takes (a mail, a report): what() is "larger than the
// N MiB ... reads" with the limit; the caller names the input.
struct InputTooLarge : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The whole of `in` when it holds at most `limit` bytes; else throws InputTooLarge having read
// no more than limit + 1 bytes of it, so a hostile input costs bounded memory.
std::string read_at_most(std::istream& in, size_t limit);
// read_file() for outside input: nullopt when it cannot be opened, InputTooLarge past `limit`.
std::optional<std::string> read_file_at_most(const std::filesystem::path& path, size_t limit);

// A new directory `<prefix>-XXXXXX` (mkdtemp: unique, mode 0700) in
// std::filesystem::temp_directory_path() ($TMPDIR, else /tmp). Throws std::system_error with
// the errno and the pattern: "cannot create a temporary directory: /x/<prefix>-XXXXXX: ...".
std::filesystem::path make_temp_dir(std::string_view prefix);

// make_temp_dir's directory, removed with everything in it when this goes away, unless
// release() was called.
class TempDir {
  public:
    explicit TempDir(std::string_view prefix) : path_(make_temp_dir(prefix)) {}
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    // Keeps the directory: the destructor leaves it where it is.
    void release() { keep_ = true; }

  private:
    std::filesystem::path path_;
    bool keep_ = false;
};

} // namespace ksweep
