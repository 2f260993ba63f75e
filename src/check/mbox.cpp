#include "check/mbox.h"

#include <algorithm>
#include <array>

namespace ksweep::check {

namespace {

bool is_sha(std::string_view token) {
    return token.size() == 40 && std::all_of(token.begin(), token.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

// A message's first line: its line number (from 0), its offset, whether it is a "From " line.
struct Start {
    size_t line = 0;
    size_t offset = 0;
    bool separator = false;
};

} // namespace

bool is_mbox_separator(std::string_view line) {
    if (!line.starts_with("From "))
        return false;
    line.remove_prefix(5);
    const size_t space = line.find(' ');
    if (space == 0 || space == std::string_view::npos)
        return false;
    const std::string_view day = line.substr(space + 1, 4);
    static constexpr std::array<std::string_view, 7> kDays = {"Mon ", "Tue ", "Wed ", "Thu ",
                                                              "Fri ", "Sat ", "Sun "};
    return std::find(kDays.begin(), kDays.end(), day) != kDays.end();
}

bool starts_with_mail_header(std::string_view text) {
    if (text.starts_with("Index: "))
        return false; // CVS's and Subversion's diff header, not a mail's
    for (size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == ':')
            return i > 0;
        if (c < 33 || c > 126)
            return false;
    }
    return false;
}

std::vector<MboxMessage> split_mbox(std::string_view input) {
    // One pass that keeps only the separators and the first hunk header: memory in the number of
    // messages, not of lines (32 MiB of newlines is 33 million lines).
    std::vector<Start> starts;
    size_t lines = 0;
    size_t first_hunk = std::string_view::npos;
    for (size_t start = 0; start < input.size(); ++lines) {
        const size_t end = std::min(input.find('\n', start), input.size());
        const std::string_view line = input.substr(start, end - start);
        if (is_mbox_separator(line))
            starts.push_back({lines, start, true});
        else if (first_hunk == std::string_view::npos && line.starts_with("@@ "))
            first_hunk = lines;
        start = end + 1;
    }
    if (starts.empty() || starts.front().line != 0)
        starts.insert(starts.begin(), Start{});
    std::vector<MboxMessage> messages;
    for (size_t k = 0; k < starts.size(); ++k) {
        const Start& first = starts[k];
        const size_t end = k + 1 < starts.size() ? starts[k + 1].line : lines;
        if (!first.separator && starts.size() > 1 &&
            (first_hunk == std::string_view::npos || first_hunk >= end))
            continue; // a preamble
        MboxMessage m;
        m.first_line = static_cast<unsigned>(first.line) + 1;
        m.text_line = m.first_line + (first.separator ? 1 : 0);
        size_t from = first.offset;
        if (first.separator) {
            const size_t eol = std::min(input.find('\n', first.offset), input.size());
            std::string_view sep = input.substr(first.offset + 5, eol - first.offset - 5);
            std::string_view token = sep.substr(0, sep.find(' '));
            if (is_sha(token))
                m.commit = std::string(token);
            from = std::min(eol + 1, input.size());
        }
        const size_t to = k + 1 < starts.size() ? starts[k + 1].offset : input.size();
        m.text = input.substr(from, to - from);
        messages.push_back(std::move(m));
    }
    return messages;
}

} // namespace ksweep::check
