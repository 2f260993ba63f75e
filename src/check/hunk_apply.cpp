#include "check/hunk_apply.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace ksweep::check {

namespace {

struct TextLine {
    std::string_view text;
    bool newline = true; // false only for a last line without '\n'
};

std::vector<TextLine> split(const std::string& text) {
    std::vector<TextLine> lines;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) {
            lines.push_back({std::string_view(text).substr(start), false});
            break;
        }
        lines.push_back({std::string_view(text).substr(start, end - start), true});
        start = end + 1;
    }
    return lines;
}

std::vector<const DiffLine*> old_side(const Hunk& hunk) {
    std::vector<const DiffLine*> old;
    for (const auto& l : hunk.lines)
        if (l.kind != '+')
            old.push_back(&l);
    return old;
}

bool matches_at(const std::vector<TextLine>& pre, size_t pos,
                const std::vector<const DiffLine*>& old) {
    if (pos + old.size() > pre.size())
        return false;
    for (size_t k = 0; k < old.size(); ++k)
        if (pre[pos + k].text != old[k]->text)
            return false;
    return true;
}

// The position nearest to `wanted` (not before `floor`) where the old side matches, like git
// apply's offset search.
std::optional<size_t> find_position(const std::vector<TextLine>& pre, size_t floor, size_t wanted,
                                    const std::vector<const DiffLine*>& old) {
    if (wanted < floor)
        wanted = floor;
    size_t limit = pre.size() >= old.size() ? pre.size() - old.size() : 0;
    for (size_t delta = 0;; ++delta) {
        bool in_range = false;
        if (wanted + delta <= limit) {
            in_range = true;
            if (matches_at(pre, wanted + delta, old))
                return wanted + delta;
        }
        if (delta > 0 && wanted >= floor + delta) {
            in_range = true;
            if (matches_at(pre, wanted - delta, old))
                return wanted - delta;
        }
        if (!in_range)
            return std::nullopt;
    }
}

std::string describe_mismatch(const FileDiff& diff, size_t hunk_index, const Hunk& hunk,
                              const std::vector<TextLine>& pre, size_t wanted,
                              const std::vector<const DiffLine*>& old) {
    std::string where = (diff.new_path.empty() ? diff.old_path : diff.new_path) + ": hunk #" +
                        std::to_string(hunk_index + 1) + " (patch line " +
                        std::to_string(hunk.header_line) + ") does not apply";
    for (size_t k = 0; k < old.size(); ++k) {
        size_t at = wanted + k;
        if (at >= pre.size())
            return where + ": the file has only " + std::to_string(pre.size()) +
                   " lines, the patch expects '" + old[k]->text + "' at line " +
                   std::to_string(at + 1);
        if (pre[at].text != old[k]->text)
            return where + ": line " + std::to_string(at + 1) + " is '" +
                   std::string(pre[at].text) + "', the patch expects '" + old[k]->text + "'";
    }
    return where + ": it overlaps the hunk before it";
}

} // namespace

PostImage apply_hunks(const FileDiff& diff, const std::string& pre_text) {
    std::vector<TextLine> pre = split(pre_text);
    PostImage post;
    std::vector<TextLine> out;
    size_t cursor = 0;    // next unconsumed line of `pre`
    long long offset = 0; // how far earlier hunks were found from their stated lines
    for (size_t h = 0; h < diff.hunks.size(); ++h) {
        const Hunk& hunk = diff.hunks[h];
        auto old = old_side(hunk);
        // An empty old side inserts after line old_start; otherwise old_start is 1-based.
        long long stated = hunk.old_count == 0 ? hunk.old_start : hunk.old_start - 1LL;
        size_t wanted = static_cast<size_t>(std::max(0LL, stated + offset));
        auto pos = find_position(pre, cursor, wanted, old);
        if (!pos)
            throw ApplyError(describe_mismatch(diff, h, hunk, pre, std::max(wanted, cursor), old));
        offset = static_cast<long long>(*pos) - stated;
        out.insert(out.end(), pre.begin() + cursor, pre.begin() + *pos);
        cursor = *pos;
        for (const auto& line : hunk.lines) {
            if (line.kind == '-') {
                ++cursor;
                continue;
            }
            bool newline = !line.no_newline;
            if (line.kind == ' ')
                ++cursor;
            else
                post.added[static_cast<unsigned>(out.size()) + 1] = &line;
            out.push_back({line.text, newline});
        }
    }
    out.insert(out.end(), pre.begin() + cursor, pre.end());
    for (const auto& line : out) {
        post.text.append(line.text);
        if (line.newline)
            post.text += '\n';
    }
    return post;
}

} // namespace ksweep::check
