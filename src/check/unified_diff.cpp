#include "check/unified_diff.h"

#include "check/mail_text.h"
#include "check/mbox.h"
#include "core/strings.h"
#include "core/tree_path.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <regex>

namespace ksweep::check {

namespace {

std::string error_at(unsigned line, const std::string& what) {
    return "line " + std::to_string(line) + ": " + what;
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

// The lines of a text one at a time, with the next one in view: no vector of every line, so an
// input of many short lines costs no more than its own bytes.
class LineCursor {
  public:
    LineCursor(std::string_view text, unsigned first_line) : text_(text), number_(first_line) {
        end_ = line_end(0);
    }

    bool done() const { return begin_ >= text_.size(); }
    std::string_view line() const { return text_.substr(begin_, end_ - begin_); }
    // The line after this one; nullopt at the end of the text.
    std::optional<std::string_view> next_line() const {
        if (end_ + 1 >= text_.size())
            return std::nullopt;
        return text_.substr(end_ + 1, line_end(end_ + 1) - end_ - 1);
    }
    unsigned number() const { return number_; }
    void advance() {
        begin_ = end_ + 1;
        end_ = line_end(begin_);
        ++number_;
    }

  private:
    size_t line_end(size_t from) const {
        return from >= text_.size() ? text_.size() : std::min(text_.find('\n', from), text_.size());
    }

    std::string_view text_;
    size_t begin_ = 0, end_ = 0;
    unsigned number_;
};

// A path as the patch names it, accepted only if it stays inside the tree (core/tree_path.h).
std::string checked(const std::string& path, unsigned line) {
    try {
        return checked_tree_path(path);
    } catch (const TreePathError& e) {
        throw DiffError(error_at(line, e.what()));
    }
}

// The diff of one message: its files and hunks, every path and mode checked.
class PatchParser {
  public:
    // `hunk_lines` counts the hunk lines of the whole input against kMaxHunkLines.
    PatchParser(std::string_view text, unsigned first_line, size_t& hunk_lines, Patch& patch)
        : at_(text, first_line), hunk_lines_(hunk_lines), patch_(patch) {}

    void parse() {
        while (!at_.done()) {
            std::string_view line = at_.line();
            auto next = at_.next_line();
            if (line.starts_with("diff --git ")) {
                start_file();
                auto [old_path, new_path] = git_header_paths(line.substr(11));
                current().old_path = checked(old_path, at_.number());
                current().new_path = checked(new_path, at_.number());
                in_git_header_ = true;
                at_.advance();
            } else if (line.starts_with("--- ") && next && next->starts_with("+++ ")) {
                if (!in_git_header_)
                    start_file();
                current().old_path = operand_path(line.substr(4));
                at_.advance();
                current().new_path = operand_path(at_.line().substr(4));
                in_git_header_ = false;
                at_.advance();
            } else if (line.starts_with("@@ ")) {
                read_hunk();
            } else if (in_git_header_) {
                read_git_extended_header(line);
                at_.advance();
            } else {
                at_.advance(); // diffstat, signature, a part's trailing text
            }
        }
    }

  private:
    FileDiff& current() { return patch_.files.back(); }

    void start_file() {
        patch_.files.emplace_back();
        current().header_line = at_.number();
    }

    // A ---/+++ operand's path: "" for /dev/null.
    std::string operand_path(std::string_view operand) {
        std::string path = tree_path(operand);
        return path.empty() ? path : checked(path, at_.number());
    }

    void check_mode(std::string_view mode) {
        const std::string& path =
            current().new_path.empty() ? current().old_path : current().new_path;
        try {
            check_file_mode(path, trim(mode));
        } catch (const TreePathError& e) {
            throw DiffError(error_at(at_.number(), e.what()));
        }
    }

    void read_git_extended_header(std::string_view line) {
        FileDiff& file = current();
        if (line.starts_with("new file mode ")) {
            check_mode(line.substr(14));
            file.old_path.clear();
        } else if (line.starts_with("deleted file mode ")) {
            check_mode(line.substr(18));
            file.new_path.clear();
        } else if (line.starts_with("old mode ") || line.starts_with("new mode ")) {
            check_mode(line.substr(9));
        } else if (line.starts_with("index ")) {
            // "index abc..def 100644": the mode of a file the patch leaves in place
            const std::vector<std::string> words = split_words(line.substr(6));
            if (words.size() > 1)
                check_mode(words[1]);
            static const std::regex ids(R"(^index ([0-9a-f]{4,64})\.\.([0-9a-f]{4,64})( .*)?$)");
            std::match_results<std::string_view::const_iterator> m;
            if (std::regex_match(line.begin(), line.end(), m, ids)) {
                file.old_blob = m[1].str();
                file.new_blob = m[2].str();
            }
        } else if (line.starts_with("rename from ") || line.starts_with("copy from ")) {
            file.old_path = checked(unquote(line.substr(line.find(" from ") + 6)), at_.number());
            file.copy = line.starts_with("copy ");
        } else if (line.starts_with("rename to ") || line.starts_with("copy to ")) {
            file.new_path = checked(unquote(line.substr(line.find(" to ") + 4)), at_.number());
        } else if (line.starts_with("Binary files ") || line.starts_with("GIT binary patch")) {
            file.binary = true;
        }
    }

    // A hunk's body is exactly old_count old-side and new_count new-side lines; anything else
    // before they are all seen means the patch is damaged (truncated, re-wrapped by a mailer).
    void read_hunk() {
        if (patch_.files.empty() || in_git_header_)
            throw DiffError(error_at(at_.number(), "hunk without a preceding ---/+++ file header"));
        Hunk hunk;
        hunk.header_line = at_.number();
        if (!parse_hunk_header(at_.line(), hunk))
            throw DiffError(
                error_at(at_.number(),
                         "malformed hunk header '" + std::string(at_.line().substr(0, 80)) + "'"));
        at_.advance();
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
            if (at_.done())
                throw DiffError(error_at(hunk.header_line,
                                         "hunk ends early: input ends with " +
                                             std::to_string(old_left) + " old and " +
                                             std::to_string(new_left) + " new lines missing"));
            std::string_view line = at_.line();
            // GNU diff and some mailers drop the space of an empty context line.
            char kind = line.empty() ? ' ' : line[0];
            if (kind == '\\') {
                if (!hunk.lines.empty())
                    hunk.lines.back().no_newline = true;
                count_like_checkpatch(kind);
                at_.advance();
                continue;
            }
            bool takes_old = kind == ' ' || kind == '-';
            bool takes_new = kind == ' ' || kind == '+';
            if ((!takes_old && !takes_new) || (takes_old && old_left == 0) ||
                (takes_new && new_left == 0))
                throw DiffError(error_at(
                    at_.number(),
                    "unexpected line in hunk at line " + std::to_string(hunk.header_line) + " (" +
                        std::to_string(old_left) + " old and " + std::to_string(new_left) +
                        " new lines still expected): '" + std::string(line.substr(0, 60)) + "'"));
            if (++hunk_lines_ > kMaxHunkLines)
                throw DiffError(
                    error_at(at_.number(), "more than " + std::to_string(kMaxHunkLines) +
                                               " hunk lines in one input, the most ksweep check "
                                               "reads: give the patches as separate files"));
            old_left -= takes_old;
            new_left -= takes_new;
            count_like_checkpatch(kind);
            hunk.lines.push_back(
                {kind, std::string(line.empty() ? line : line.substr(1)), false, at_.number()});
            at_.advance();
        }
        if (!at_.done() && at_.line().starts_with("\\")) {
            if (!hunk.lines.empty())
                hunk.lines.back().no_newline = true;
            at_.advance();
        }
        current().hunks.push_back(std::move(hunk));
    }

    LineCursor at_;
    size_t& hunk_lines_;
    Patch& patch_;
    bool in_git_header_ = false; // between "diff --git" and its ---/+++ (or first hunk)
};

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// "Re: ...", "RE: ...", "Aw: ..." (what German mailers write).
bool is_reply_subject(std::string_view subject) {
    const std::string start = lower(trim(subject).substr(0, 3));
    return start == "re:" || start == "aw:";
}

// The subject's leading "[...]" tags, each without its brackets.
std::vector<std::string> leading_tags(std::string_view subject) {
    std::vector<std::string> tags;
    for (std::string rest = trim(subject); rest.starts_with('[');) {
        const size_t close = rest.find(']');
        if (close == std::string::npos)
            break;
        tags.push_back(rest.substr(1, close - 1));
        rest = trim(std::string_view(rest).substr(close + 1));
    }
    return tags;
}

bool has_patch_tag(std::string_view subject) {
    for (const std::string& tag : leading_tags(subject))
        if (lower(tag).find("patch") != std::string::npos)
            return true;
    return false;
}

std::optional<unsigned> whole_number(std::string_view s) {
    size_t pos = 0;
    auto value = parse_number(s, pos);
    return pos == s.size() ? value : std::nullopt;
}

std::string quoted_subject(const Patch& patch) {
    return "(\"" + patch.subject + "\")";
}

} // namespace

std::optional<SeriesTag> series_tag(std::string_view subject) {
    for (const std::string& tag : leading_tags(subject)) {
        SeriesTag found;
        bool numbered = false;
        for (std::string_view word : split_words(tag)) {
            if (size_t slash = word.find('/'); slash != std::string_view::npos) {
                auto number = whole_number(word.substr(0, slash));
                auto total = whole_number(word.substr(slash + 1));
                if (number && total) {
                    found.number = *number;
                    found.total = *total;
                    numbered = true;
                }
            } else if (word.size() > 1 && (word[0] == 'v' || word[0] == 'V')) {
                if (auto version = whole_number(word.substr(1)))
                    found.version = *version;
            }
        }
        if (numbered)
            return found;
    }
    return std::nullopt;
}

bool is_cover_letter_subject(const std::string& subject) {
    auto tag = series_tag(subject);
    return tag && tag->number == 0 && !is_reply_subject(subject);
}

NoDiff why_no_diff(const Patch& patch, bool in_thread) {
    if (is_cover_letter_subject(patch.subject))
        return NoDiff::cover_letter;
    if (!in_thread)
        return NoDiff::missing;
    if (is_reply_subject(patch.subject))
        return NoDiff::reply;
    return has_patch_tag(patch.subject) ? NoDiff::missing : NoDiff::not_a_patch;
}

std::vector<Patch> read_patches(std::string_view input) {
    if (input.size() > kMaxInputBytes)
        throw DiffError("line 1: the input is larger than the " +
                        std::to_string(kMaxInputBytes >> 20) +
                        " MiB ksweep check reads: give the patches as separate files");
    const std::vector<MboxMessage> messages = split_mbox(input);
    if (messages.size() > kMaxMessages)
        throw DiffError("line " + std::to_string(messages[kMaxMessages].first_line) +
                        ": more than " + std::to_string(kMaxMessages) +
                        " messages in one input, the most ksweep check reads: give the patches "
                        "as separate files");
    std::vector<Patch> patches;
    size_t hunk_lines = 0;
    for (size_t k = 0; k < messages.size(); ++k) {
        const MboxMessage& m = messages[k];
        Patch patch;
        patch.first_line = m.first_line;
        patch.commit = m.commit;
        patch.message = static_cast<unsigned>(k) + 1;
        try {
            if (!starts_with_mail_header(m.text)) {
                PatchParser(m.text, m.text_line, hunk_lines, patch).parse();
            } else {
                const MailText mail = read_mail(m.text);
                patch.subject = mail.subject;
                const std::string_view body = mail.body;
                const unsigned patch_line =
                    m.text_line + mail.body_line - 1 +
                    static_cast<unsigned>(
                        std::count(body.begin(),
                                   body.begin() + std::min(mail.patch_start, body.size()), '\n'));
                patch.reply = messages.size() > 1 && is_reply_subject(patch.subject);
                if (mail.patch_start != std::string::npos)
                    PatchParser(mail.patch(), patch_line, hunk_lines, patch).parse();
            }
        } catch (const MailError& e) {
            throw DiffError((messages.size() > 1 ? "message " + std::to_string(k + 1) + " " +
                                                       quoted_subject(patch) + ": "
                                                 : "") +
                            error_at(m.first_line, e.what()));
        } catch (const DiffError& e) {
            if (messages.size() == 1)
                throw;
            throw DiffError("message " + std::to_string(k + 1) + " " + quoted_subject(patch) +
                            ": " + e.what());
        }
        patches.push_back(std::move(patch));
    }
    if (patches.empty())
        throw DiffError("line 1: no unified diff found in the input");
    return patches;
}

std::string put_in_series_order(std::vector<Patch>& patches) {
    std::vector<size_t> slots; // where the patches with a diff are
    std::vector<std::pair<SeriesTag, size_t>> tagged;
    for (size_t i = 0; i < patches.size(); ++i) {
        if (patches[i].files.empty() || patches[i].reply)
            continue;
        auto tag = series_tag(patches[i].subject);
        if (!tag || tag->number == 0)
            return ""; // not a numbered series: the input's order is the order
        slots.push_back(i);
        tagged.emplace_back(*tag, i);
    }
    auto key = [](const std::pair<SeriesTag, size_t>& t) {
        return std::pair(t.first.version, t.first.number);
    };
    std::stable_sort(tagged.begin(), tagged.end(),
                     [&](const auto& a, const auto& b) { return key(a) < key(b); });
    for (size_t i = 1; i < tagged.size(); ++i) {
        const Patch& a = patches[tagged[i - 1].second];
        const Patch& b = patches[tagged[i].second];
        if (tagged[i - 1].first.version != tagged[i].first.version)
            throw DiffError("message " + std::to_string(a.message) + " " + quoted_subject(a) +
                            " and message " + std::to_string(b.message) + " " + quoted_subject(b) +
                            " are two versions of a series: give one (b4 am -v N picks it)");
        if (key(tagged[i - 1]) == key(tagged[i]))
            throw DiffError("message " + std::to_string(a.message) + " " + quoted_subject(a) +
                            " and message " + std::to_string(b.message) + " " + quoted_subject(b) +
                            " are the same patch of the series: give one");
    }
    std::string moved;
    for (size_t i = 0; i < tagged.size(); ++i)
        if (tagged[i].second != slots[i])
            moved += (moved.empty() ? "" : ", ") + std::to_string(tagged[i].first.number) + "/" +
                     std::to_string(tagged[i].first.total) + " is message " +
                     std::to_string(patches[tagged[i].second].message);
    if (moved.empty())
        return "";
    std::vector<Patch> ordered;
    for (const auto& t : tagged)
        ordered.push_back(std::move(patches[t.second]));
    for (size_t i = 0; i < slots.size(); ++i)
        patches[slots[i]] = std::move(ordered[i]);
    return "patches checked in [PATCH n/m] order, not the order of the messages (" + moved + ")";
}

} // namespace ksweep::check
