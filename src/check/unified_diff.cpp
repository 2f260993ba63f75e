#include "check/unified_diff.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <regex>

namespace ksweep::check {

namespace {

using Lines = std::vector<std::string_view>;

Lines split_lines(std::string_view input) {
    Lines lines;
    size_t start = 0;
    while (start < input.size()) {
        size_t end = input.find('\n', start);
        if (end == std::string_view::npos)
            end = input.size();
        lines.push_back(input.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::string error_at(unsigned line, const std::string& what) {
    return "line " + std::to_string(line) + ": " + what;
}

// A mailbox separator: "From <sha or sender> <weekday> ..." as git format-patch and mbox
// writers put before every message.
bool is_mbox_separator(std::string_view line) {
    static const std::regex separator(R"(^From \S+ (Mon|Tue|Wed|Thu|Fri|Sat|Sun) .*)");
    return line.starts_with("From ") && std::regex_match(line.begin(), line.end(), separator);
}

// Git's C-style quoting of unusual paths: "a/with\ttab".
std::string unquote(std::string_view s) {
    if (s.size() < 2 || s.front() != '"' || s.back() != '"')
        return std::string(s);
    std::string out;
    for (size_t i = 1; i + 1 < s.size(); ++i) {
        if (s[i] != '\\' || i + 2 >= s.size()) {
            out += s[i];
            continue;
        }
        char c = s[++i];
        switch (c) {
        case 'n':
            out += '\n';
            break;
        case 't':
            out += '\t';
            break;
        case '"':
            out += '"';
            break;
        case '\\':
            out += '\\';
            break;
        default:
            if (c >= '0' && c <= '7' && i + 2 < s.size() - 1) {
                out += static_cast<char>((c - '0') * 64 + (s[i + 1] - '0') * 8 + (s[i + 2] - '0'));
                i += 2;
            } else {
                out += c;
            }
        }
    }
    return out;
}

// The tree-relative path of a ---/+++ operand: "" for /dev/null, the first component
// ("a/", "b/") stripped as patch -p1 and git apply do.
std::string tree_path(std::string_view operand) {
    if (size_t tab = operand.find('\t'); tab != std::string_view::npos)
        operand = operand.substr(0, tab);
    while (!operand.empty() && operand.back() == ' ')
        operand.remove_suffix(1);
    std::string path = unquote(operand);
    if (path == "/dev/null")
        return "";
    if (size_t slash = path.find('/'); slash != std::string::npos)
        path.erase(0, slash + 1);
    return path;
}

// "diff --git a/X b/Y": the two paths. Unquoted paths may hold spaces, so prefer the split
// that gives two equal names (the common case), else the last " b/".
std::pair<std::string, std::string> git_header_paths(std::string_view rest) {
    if (!rest.empty() && rest.front() == '"') {
        size_t close = rest.find("\" ", 1);
        if (close != std::string_view::npos)
            return {tree_path(rest.substr(0, close + 1)), tree_path(rest.substr(close + 2))};
    }
    if (rest.size() % 2 == 1) {
        size_t half = rest.size() / 2;
        std::string a = tree_path(rest.substr(0, half)), b = tree_path(rest.substr(half + 1));
        if (rest[half] == ' ' && a == b)
            return {a, b};
    }
    size_t split = rest.rfind(" b/");
    if (split == std::string_view::npos)
        return {tree_path(rest), tree_path(rest)};
    return {tree_path(rest.substr(0, split)), tree_path(rest.substr(split + 1))};
}

std::optional<unsigned> parse_number(std::string_view s, size_t& pos) {
    unsigned value = 0;
    auto [end, ec] = std::from_chars(s.data() + pos, s.data() + s.size(), value);
    if (ec != std::errc())
        return std::nullopt;
    pos = end - s.data();
    return value;
}

// "@@ -a[,b] +c[,d] @@ ...": false when the header is malformed.
bool parse_hunk_header(std::string_view line, Hunk& hunk) {
    size_t pos = 3; // after "@@ "
    if (line.size() <= pos || line[pos] != '-')
        return false;
    ++pos;
    auto old_start = parse_number(line, pos);
    if (!old_start)
        return false;
    hunk.old_start = *old_start;
    hunk.old_count = 1;
    if (pos < line.size() && line[pos] == ',') {
        ++pos;
        auto count = parse_number(line, pos);
        if (!count)
            return false;
        hunk.old_count = *count;
    }
    if (line.substr(pos, 2) != " +")
        return false;
    pos += 2;
    auto new_start = parse_number(line, pos);
    if (!new_start)
        return false;
    hunk.new_start = *new_start;
    hunk.new_count = 1;
    if (pos < line.size() && line[pos] == ',') {
        ++pos;
        auto count = parse_number(line, pos);
        if (!count)
            return false;
        hunk.new_count = *count;
    }
    return line.substr(pos, 3) == " @@";
}

class PatchParser {
  public:
    PatchParser(const Lines& lines, size_t begin, size_t end)
        : lines_(lines), i_(begin), end_(end) {
        patch_.first_line = static_cast<unsigned>(begin) + 1;
    }

    Patch parse() {
        read_mail_headers();
        while (i_ < end_) {
            std::string_view line = lines_[i_];
            if (line.starts_with("diff --git ")) {
                start_file(line_number());
                auto [old_path, new_path] = git_header_paths(line.substr(11));
                current().old_path = old_path;
                current().new_path = new_path;
                in_git_header_ = true;
                ++i_;
            } else if (line.starts_with("--- ") && i_ + 1 < end_ &&
                       lines_[i_ + 1].starts_with("+++ ")) {
                if (!in_git_header_)
                    start_file(line_number());
                current().old_path = tree_path(line.substr(4));
                current().new_path = tree_path(lines_[i_ + 1].substr(4));
                in_git_header_ = false;
                i_ += 2;
            } else if (line.starts_with("@@ ")) {
                read_hunk();
            } else if (in_git_header_) {
                read_git_extended_header(line);
                ++i_;
            } else {
                ++i_; // commit message, diffstat, signature
            }
        }
        return std::move(patch_);
    }

  private:
    unsigned line_number() const { return static_cast<unsigned>(i_) + 1; }
    FileDiff& current() { return patch_.files.back(); }

    void start_file(unsigned header_line) {
        patch_.files.emplace_back();
        current().header_line = header_line;
    }

    // The mail's own header block: the separator's sha and the (possibly folded) Subject.
    void read_mail_headers() {
        if (i_ < end_ && is_mbox_separator(lines_[i_])) {
            std::string_view sep = lines_[i_].substr(5);
            std::string_view token = sep.substr(0, sep.find(' '));
            static const std::regex sha("[0-9a-f]{40}");
            if (std::regex_match(token.begin(), token.end(), sha))
                patch_.commit = std::string(token);
            ++i_;
        }
        for (size_t j = i_; j < end_ && !lines_[j].empty(); ++j) {
            if (!lines_[j].starts_with("Subject:"))
                continue;
            std::string subject(lines_[j].substr(8));
            while (j + 1 < end_ && !lines_[j + 1].empty() &&
                   (lines_[j + 1][0] == ' ' || lines_[j + 1][0] == '\t'))
                subject += std::string(lines_[++j]);
            size_t first = subject.find_first_not_of(" \t");
            patch_.subject = first == std::string::npos ? "" : subject.substr(first);
            break;
        }
    }

    void read_git_extended_header(std::string_view line) {
        FileDiff& file = current();
        if (line.starts_with("new file mode"))
            file.old_path.clear();
        else if (line.starts_with("deleted file mode"))
            file.new_path.clear();
        else if (line.starts_with("rename from ") || line.starts_with("copy from ")) {
            file.old_path = unquote(line.substr(line.find(" from ") + 6));
            file.copy = line.starts_with("copy ");
        } else if (line.starts_with("rename to ") || line.starts_with("copy to "))
            file.new_path = unquote(line.substr(line.find(" to ") + 4));
        else if (line.starts_with("Binary files ") || line.starts_with("GIT binary patch"))
            file.binary = true;
        else if (line.starts_with("index ")) {
            static const std::regex ids(R"(^index ([0-9a-f]{4,64})\.\.([0-9a-f]{4,64})( .*)?$)");
            std::match_results<std::string_view::const_iterator> m;
            if (std::regex_match(line.begin(), line.end(), m, ids)) {
                file.old_blob = m[1].str();
                file.new_blob = m[2].str();
            }
        }
    }

    // A hunk's body is exactly old_count old-side and new_count new-side lines; anything else
    // before they are all seen means the patch is damaged (truncated, re-wrapped by a mailer).
    void read_hunk() {
        if (patch_.files.empty() || in_git_header_)
            throw DiffError(
                error_at(line_number(), "hunk without a preceding ---/+++ file header"));
        Hunk hunk;
        hunk.header_line = line_number();
        if (!parse_hunk_header(lines_[i_], hunk))
            throw DiffError(
                error_at(line_number(), "malformed hunk header '" + std::string(lines_[i_]) + "'"));
        ++i_;
        unsigned old_left = hunk.old_count, new_left = hunk.new_count;
        unsigned checkpatch_count = hunk.new_count + 1; // checkpatch.pl's $realcnt
        auto count_like_checkpatch = [&](char kind) {
            if (kind == ' ' || kind == '+')
                checkpatch_count -= checkpatch_count != 0;
            else if (checkpatch_count == 1)
                checkpatch_count = 0;
            patch_.lines_checked += checkpatch_count != 0;
        };
        while (old_left > 0 || new_left > 0) {
            if (i_ >= end_)
                throw DiffError(error_at(hunk.header_line,
                                         "hunk ends early: input ends with " +
                                             std::to_string(old_left) + " old and " +
                                             std::to_string(new_left) + " new lines missing"));
            std::string_view line = lines_[i_];
            // GNU diff and some mailers drop the space of an empty context line.
            char kind = line.empty() ? ' ' : line[0];
            if (kind == '\\') {
                if (!hunk.lines.empty())
                    hunk.lines.back().no_newline = true;
                count_like_checkpatch(kind);
                ++i_;
                continue;
            }
            bool takes_old = kind == ' ' || kind == '-';
            bool takes_new = kind == ' ' || kind == '+';
            if ((!takes_old && !takes_new) || (takes_old && old_left == 0) ||
                (takes_new && new_left == 0))
                throw DiffError(error_at(
                    line_number(),
                    "unexpected line in hunk at line " + std::to_string(hunk.header_line) + " (" +
                        std::to_string(old_left) + " old and " + std::to_string(new_left) +
                        " new lines still expected): '" + std::string(line.substr(0, 60)) + "'"));
            old_left -= takes_old;
            new_left -= takes_new;
            count_like_checkpatch(kind);
            hunk.lines.push_back(
                {kind, std::string(line.empty() ? line : line.substr(1)), false, line_number()});
            ++i_;
        }
        if (i_ < end_ && lines_[i_].starts_with("\\")) {
            if (!hunk.lines.empty())
                hunk.lines.back().no_newline = true;
            ++i_;
        }
        current().hunks.push_back(std::move(hunk));
    }

    const Lines& lines_;
    size_t i_;
    size_t end_;
    bool in_git_header_ = false; // between "diff --git" and its ---/+++ (or first hunk)
    Patch patch_;
};

} // namespace

bool is_cover_letter_subject(const std::string& subject) {
    static const std::regex numbered(R"(^\[[^\]]*\b0+/[0-9]+\])");
    return std::regex_search(subject, numbered);
}

std::vector<Patch> read_patches(std::string_view input) {
    Lines lines = split_lines(input);
    std::vector<size_t> starts;
    for (size_t i = 0; i < lines.size(); ++i)
        if (is_mbox_separator(lines[i]))
            starts.push_back(i);
    if (starts.empty() || starts.front() != 0)
        starts.insert(starts.begin(), 0);
    std::vector<Patch> patches;
    for (size_t k = 0; k < starts.size(); ++k) {
        size_t end = k + 1 < starts.size() ? starts[k + 1] : lines.size();
        // Text before the first separator (an mbox "preamble") is not a patch.
        if (k == 0 && starts.size() > 1 && !is_mbox_separator(lines[0]) &&
            std::none_of(lines.begin(), lines.begin() + end,
                         [](std::string_view l) { return l.starts_with("@@ "); }))
            continue;
        patches.push_back(PatchParser(lines, starts[k], end).parse());
    }
    if (patches.empty())
        throw DiffError("line 1: no unified diff found in the input");
    return patches;
}

} // namespace ksweep::check
