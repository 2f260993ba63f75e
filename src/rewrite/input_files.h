// The files a parse read, each with its size, modification time and SHA-256, kept beside a cache
// entry made from that parse (a precompiled preamble, a file's semantic results): the entry
// serves while every one of them still has that content. A file changed within two seconds of
// the parse is always compared by content, its timestamps not yet telling.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ksweep {

// Writes the list of `files` (read again now) to `list`, whole or not at all (a reader never
// sees a torn list), after `started_ns` (when the parse began, nanoseconds since the epoch);
// false when one cannot be read or the list cannot be written.
bool write_input_files(const std::filesystem::path& list, const std::vector<std::string>& files,
                       long long started_ns);

// Every file the list names still has its content (an empty or torn list: false).
bool input_files_unchanged(const std::filesystem::path& list);

// The paths a list names.
std::vector<std::string> input_file_paths(const std::filesystem::path& list);

// Now, in nanoseconds since the epoch: a parse's `started_ns`.
long long now_ns();

} // namespace ksweep
