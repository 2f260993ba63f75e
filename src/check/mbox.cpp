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

struct Line {
    std::string_view text; // without its '\n'
    size_t offset = 0;
};

std::vector<Line> split_lines(std::string_view input) {
    std::vector<Line> lines;
    for (size_t start = 0; start < input.size();) {
        size_t end = std::min(input.find('\n', start), input.size());
        lines.push_back({input.substr(start, end - start), start});
        start = end + 1;
    }
    return lines;
}

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
    const std::vector<Line> lines = split_lines(input);
    std::vector<size_t> starts;
    for (size_t i = 0; i < lines.size(); ++i)
        if (is_mbox_separator(lines[i].text))
            starts.push_back(i);
    if (starts.empty() || starts.front() != 0)
        starts.insert(starts.begin(), 0);
    std::vector<MboxMessage> messages;
    for (size_t k = 0; k < starts.size(); ++k) {
        const size_t first = starts[k];
        const size_t end = k + 1 < starts.size() ? starts[k + 1] : lines.size();
        const bool separated = first < lines.size() && is_mbox_separator(lines[first].text);
        if (!separated && starts.size() > 1 &&
            std::none_of(lines.begin(), lines.begin() + end,
                         [](const Line& l) { return l.text.starts_with("@@ "); }))
            continue; // a preamble
        MboxMessage m;
        const size_t body = first + (separated ? 1 : 0);
        m.first_line = static_cast<unsigned>(first) + 1;
        m.text_line = static_cast<unsigned>(body) + 1;
        if (separated) {
            std::string_view sep = lines[first].text.substr(5);
            std::string_view token = sep.substr(0, sep.find(' '));
            if (is_sha(token))
                m.commit = std::string(token);
        }
        const size_t from = body < lines.size() ? lines[body].offset : input.size();
        const size_t to = end < lines.size() ? lines[end].offset : input.size();
        m.text = input.substr(from, to - from);
        messages.push_back(std::move(m));
    }
    return messages;
}

} // namespace ksweep::check
