// Line wrapping the way git and kernel commit messages need it.
#pragma once

#include <string>
#include <vector>

namespace ksweep::series {

// git's strbuf_add_wrapped_text(): words fill lines up to `width` columns; the first line is
// indented by indent1 (negative: the text continues a line already -indent1 columns long),
// later lines by indent2. Used for Subject headers (width 78) and cover-letter shortlogs (72).
std::string git_wrap(const std::string& text, int indent1, int indent2, int width);

// A commit message body wrapped at `width` columns: blank-line separated paragraphs are
// refilled; lines starting with whitespace, "-" or "*" begin a new line; a list item's
// continuation lines align with its text, an indented line's go 4 columns deeper.
// A number and its unit ("12 ms", "300 us", "25 %") stay on one line.
std::string wrap_body(const std::string& text, size_t width = 75);

// The words wrap_body() fills lines with: whitespace-separated, except that a number and the
// unit after it are one ("up to 12 ms" -> {"up", "to", "12 ms"}).
std::vector<std::string> wrap_tokens(const std::string& line);

} // namespace ksweep::series
