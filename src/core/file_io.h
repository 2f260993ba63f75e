// Small file helpers shared by every component.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace ksweep {

// The whole file, byte for byte (binary mode: NUL bytes and "\r\n" survive); nullopt when it
// cannot be opened. Callers that need an error say so in their own words.
std::optional<std::string> read_file(const std::filesystem::path& path);

} // namespace ksweep
