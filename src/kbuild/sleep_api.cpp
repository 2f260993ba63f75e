#include "kbuild/sleep_api.h"

#include "core/file_io.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <vector>

namespace fs = std::filesystem;

namespace ksweep::kbuild {

namespace sleep_api_detail {

std::string strip_comments(const std::string& text) {
    std::string out = text;
    const size_t n = text.size();
    size_t i = 0;
    auto blank = [&](size_t from, size_t to) {
        for (size_t k = from; k < to && k < n; ++k)
            if (out[k] != '\n')
                out[k] = ' ';
    };
    while (i < n) {
        const char c = text[i];
        if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            size_t end = text.find("*/", i + 2);
            end = end == std::string::npos ? n : end + 2;
            blank(i, end);
            i = end;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            // A line comment ends at a newline that is not escaped by a backslash.
            size_t end = i + 2;
            while (end < n && !(text[end] == '\n' && text[end - 1] != '\\'))
                ++end;
            blank(i, end);
            i = end;
        } else if (c == '"' || c == '\'') {
            size_t end = i + 1;
            while (end < n && text[end] != c && text[end] != '\n')
                end += text[end] == '\\' ? 2 : 1;
            i = std::min(n, end + 1);
        } else {
            ++i;
        }
    }
    return out;
}

namespace {

bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

size_t skip_space(const std::string& s, size_t i) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
        ++i;
    return i;
}

// The index just past the bracket that closes the one at `open` (npos when unbalanced).
size_t matching(const std::string& s, size_t open, char o, char c) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == o)
            ++depth;
        else if (s[i] == c && --depth == 0)
            return i + 1;
    }
    return std::string::npos;
}

// Offsets of `name` as a whole identifier in `s`.
std::vector<size_t> identifier_at(const std::string& s, const std::string& name) {
    std::vector<size_t> out;
    for (size_t at = s.find(name); at != std::string::npos; at = s.find(name, at + 1)) {
        bool before = at > 0 && ident_char(s[at - 1]);
        bool after = at + name.size() < s.size() && ident_char(s[at + name.size()]);
        if (!before && !after)
            out.push_back(at);
    }
    return out;
}

int line_of(const std::string& s, size_t offset) {
    return 1 + static_cast<int>(std::count(s.begin(), s.begin() + static_cast<long>(offset), '\n'));
}

// The last identifier of the first parameter in "(unsigned long usecs, ...)".
std::string first_param(const std::string& params) {
    std::string first = params.substr(0, params.find(','));
    std::string last, word;
    for (char c : first + " ") {
        if (ident_char(c)) {
            word += c;
        } else {
            if (!word.empty() && !std::isdigit(static_cast<unsigned char>(word[0])))
                last = word;
            word.clear();
        }
    }
    return last == "void" ? "" : last;
}

} // namespace

std::optional<FunctionBody> find_function(const std::string& code, const std::string& name) {
    for (size_t at : identifier_at(code, name)) {
        size_t open = skip_space(code, at + name.size());
        if (open >= code.size() || code[open] != '(')
            continue;
        size_t close = matching(code, open, '(', ')');
        if (close == std::string::npos)
            continue;
        size_t brace = skip_space(code, close);
        if (brace >= code.size() || code[brace] != '{')
            continue; // a call, a declaration or EXPORT_SYMBOL(name)
        size_t end = matching(code, brace, '{', '}');
        if (end == std::string::npos)
            continue;
        FunctionBody f;
        f.body = code.substr(brace + 1, end - brace - 2);
        f.body_offset = brace + 1;
        f.param = first_param(code.substr(open + 1, close - open - 2));
        f.line = line_of(code, at);
        return f;
    }
    return std::nullopt;
}

std::string squeeze(const std::string& text) {
    std::string out;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)))
            out += c;
    return out;
}

} // namespace sleep_api_detail

namespace {

using namespace sleep_api_detail;

void read_delay_h(const std::string& root, SleepApi& api) {
    const std::string rel = "include/linux/delay.h";
    auto text = read_file(fs::path(root) / rel);
    if (!text) {
        api.fsleep_note = rel + " is not in the tree: fsleep()'s slack is unknown";
        api.usleep_range_state_note = rel + " is not in the tree: usleep_range_state() unknown";
        return;
    }
    const std::string code = strip_comments(*text);

    for (size_t at : identifier_at(code, "usleep_range_state")) {
        size_t open = skip_space(code, at + std::string("usleep_range_state").size());
        if (open < code.size() && code[open] == '(') {
            api.has_usleep_range_state = true;
            api.usleep_range_state_source = rel + ":" + std::to_string(line_of(code, at));
            break;
        }
    }
    if (!api.has_usleep_range_state)
        api.usleep_range_state_note = rel + " declares no usleep_range_state()";

    // fsleep() is read by running it (rewrite/sleep_eval.h): its spelling differs by tree.
    api.fsleep_note = "fsleep() is not read here: it is evaluated with the tree's headers";
}

void read_msleep(const std::string& root, SleepApi& api) {
    const std::vector<std::string> files = {"kernel/time/sleep_timeout.c", "kernel/time/timer.c"};
    bool any_file = false;
    for (const auto& rel : files) {
        auto text = read_file(fs::path(root) / rel);
        if (!text)
            continue;
        any_file = true;
        const std::string code = strip_comments(*text);
        auto f = find_function(code, "msleep");
        if (!f)
            continue;
        const std::string p = f->param.empty() ? "msecs" : f->param;
        const std::string body = squeeze(f->body);
        const std::string conv = "msecs_to_jiffies(" + p + ")";
        size_t at = f->body.find("msecs_to_jiffies");
        if (at == std::string::npos) {
            api.msleep_note = "msleep() at " + rel + ":" + std::to_string(f->line) +
                              " does not call msecs_to_jiffies(): whether it adds a jiffy is "
                              "unknown";
            return;
        }
        api.msleep_source = rel + ":" + std::to_string(line_of(code, f->body_offset + at));
        // "+ 1" as a whole term: not "+ 10", not "+ 1 * x".
        auto plus_one = [&] {
            for (size_t at = body.find(conv + "+1"); at != std::string::npos;
                 at = body.find(conv + "+1", at + 1)) {
                char next = at + conv.size() + 2 < body.size() ? body[at + conv.size() + 2] : ';';
                if (next == ';' || next == ')' || next == ',' || next == '+' || next == '-')
                    return true;
            }
            size_t pre = body.find("1+" + conv);
            return pre != std::string::npos && pre > 0 &&
                   (body[pre - 1] == '=' || body[pre - 1] == '(' || body[pre - 1] == ',');
        };
        api.msleep_extra_jiffy = plus_one();
        return;
    }
    api.msleep_note = any_file ? "neither kernel/time/sleep_timeout.c nor kernel/time/timer.c "
                                 "defines msleep(): whether it adds a jiffy is unknown"
                               : "kernel/time/timer.c is not in the tree: whether msleep() adds "
                                 "a jiffy is unknown";
}

void read_timers_doc(const std::string& root, SleepApi& api) {
    for (const char* rel :
         {"Documentation/timers/delay_sleep_functions.rst", "Documentation/timers/timers-howto.rst",
          "Documentation/timers/timers-howto.txt"}) {
        std::error_code ec;
        if (fs::is_regular_file(fs::path(root) / rel, ec)) {
            api.timers_doc = rel;
            return;
        }
    }
    api.timers_doc_note = "Documentation/timers/ has neither delay_sleep_functions.rst nor "
                          "timers-howto.rst";
}

} // namespace

SleepApi read_sleep_api(const std::string& tree_root) {
    SleepApi api;
    std::error_code ec;
    if (!fs::is_directory(tree_root, ec)) {
        const std::string why = tree_root + " is not a directory";
        api.fsleep_note = api.msleep_note = api.usleep_range_state_note = api.timers_doc_note = why;
        return api;
    }
    read_delay_h(tree_root, api);
    read_msleep(tree_root, api);
    read_timers_doc(tree_root, api);
    return api;
}

const char* to_string(FsleepKind kind) {
    switch (kind) {
    case FsleepKind::Absent:
        return "absent";
    case FsleepKind::DoubleRange:
        return "double-range";
    case FsleepKind::QuarterSlack:
        return "quarter-slack";
    case FsleepKind::Unknown:
        break;
    }
    return "unknown";
}

} // namespace ksweep::kbuild
