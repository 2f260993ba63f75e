#include "series/text_wrap.h"

#include <cctype>
#include <sstream>
#include <vector>

namespace ksweep::series {

namespace {

bool is_space(char c) {
    return std::isspace(static_cast<unsigned char>(c));
}

// Display columns of one UTF-8 byte: continuation bytes take none.
int byte_width(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80 ? 0 : 1;
}

// A unit that must stay on the line of the number before it ("12 ms", "300 us", "25 %").
bool is_unit(std::string word) {
    while (!word.empty() && std::string(",.;:)]").find(word.back()) != std::string::npos)
        word.pop_back();
    static const char* const kUnits[] = {
        "ms",  "us",  "\xc2\xb5s", "ns",  "s",   "sec", "secs",  "jiffy", "jiffies", "Hz",
        "kHz", "MHz", "%",         "KiB", "MiB", "GiB", "bytes", "ticks", "extends", "boots"};
    for (const char* u : kUnits)
        if (word == u)
            return true;
    return false;
}

bool ends_in_digit(const std::string& word) {
    return !word.empty() && std::isdigit(static_cast<unsigned char>(word.back()));
}

} // namespace

std::vector<std::string> wrap_tokens(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> tokens;
    for (std::string word; in >> word;) {
        if (!tokens.empty() && ends_in_digit(tokens.back()) && is_unit(word))
            tokens.back() += " " + word; // never "12\nms"
        else
            tokens.push_back(word);
    }
    return tokens;
}

std::string git_wrap(const std::string& text, int indent1, int indent2, int width) {
    std::string out;
    const size_t n = text.size();
    auto at = [&](size_t i) { return i < n ? text[i] : '\0'; };
    size_t pos = 0, bol = 0;
    long space = -1; // git's `space` pointer: -1 is NULL
    int w = indent1, indent = indent1;
    if (indent < 0) {
        w = -indent;
        space = 0;
    }
    for (;;) {
        char c = at(pos);
        if (c && !is_space(c)) {
            w += byte_width(c);
            ++pos;
            continue;
        }
        bool new_line = false;
        if (w <= width || space < 0) {
            size_t start = bol;
            if (!c && pos == start)
                return out;
            if (space >= 0)
                start = static_cast<size_t>(space);
            else
                out.append(static_cast<size_t>(indent), ' ');
            out.append(text, start, pos - start);
            if (!c)
                return out;
            space = static_cast<long>(pos);
            if (c == '\t') {
                w |= 0x07;
            } else if (c == '\n') {
                ++space;
                if (at(space) == '\n') {
                    out += '\n';
                    new_line = true;
                } else if (!std::isalnum(static_cast<unsigned char>(at(space)))) {
                    new_line = true;
                } else {
                    out += ' ';
                }
            }
            if (!new_line) {
                ++w;
                ++pos;
                continue;
            }
        }
        out += '\n';
        pos = bol = static_cast<size_t>(space) + (is_space(at(space)) ? 1 : 0);
        space = -1;
        w = indent = indent2;
    }
}

std::string wrap_body(const std::string& text, size_t width) {
    std::istringstream in(text);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);

    std::string out;
    std::string current; // the line being filled
    size_t hang = 0;     // indent of continuation lines of the current item
    auto flush = [&] {
        if (!current.empty())
            out += current + "\n";
        current.clear();
    };
    for (const auto& raw : lines) {
        std::string line = raw;
        while (!line.empty() && is_space(line.back()))
            line.pop_back();
        if (line.empty()) {
            flush();
            // One blank line between paragraphs, however many an empty placeholder left.
            if (!out.empty() && (out.size() < 2 || out.compare(out.size() - 2, 2, "\n\n") != 0))
                out += "\n";
            continue;
        }
        size_t lead = line.find_first_not_of(" \t");
        bool starts_item = lead > 0 || line[0] == '-' || line[0] == '*';
        if (starts_item || current.empty()) {
            flush();
            // List items continue under their text; other indented lines (tables of call
            // sites) continue deeper, so a continuation never looks like a new entry.
            if (line.compare(lead, 2, "- ") == 0 || line.compare(lead, 2, "* ") == 0)
                hang = lead + 2;
            else
                hang = lead > 0 ? lead + 4 : 0;
            current = line.substr(0, lead);
            line = line.substr(lead);
        }
        for (const std::string& word : wrap_tokens(line)) {
            bool line_has_words = current.find_first_not_of(' ') != std::string::npos;
            if (line_has_words && current.size() + 1 + word.size() > width) {
                flush();
                current = std::string(hang, ' ');
                line_has_words = false;
            }
            current += (line_has_words ? " " : "") + word;
        }
    }
    flush();
    while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
        out.pop_back();
    return out;
}

} // namespace ksweep::series
