#include "check/hunk_apply.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace ksweep::check {

namespace {

// Positions looked at, per line of the file (and per hunk), before placing a hunk gives up.
constexpr size_t kSearchPerLine = 64;

struct SearchLimit {};

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

// Polynomial hashes of the file's lines, so that whether a hunk's old side sits at a position
// costs one comparison of two numbers, not one per line: placing a hunk is linear in the
// distance searched even in a file of identical lines. A hash match is then checked line by
// line.
class LineWindows {
  public:
    explicit LineWindows(const std::vector<TextLine>& pre) : prefix_(pre.size() + 1) {
        for (size_t i = 0; i < pre.size(); ++i)
            prefix_[i + 1] = prefix_[i] * kBase + line_hash(pre[i].text);
    }

    static uint64_t line_hash(std::string_view line) {
        return std::hash<std::string_view>{}(line) | 1; // never 0, so empty lines count
    }

    // The hash of `count` lines from `pos`, to compare with hash_of(old).
    uint64_t window(size_t pos, size_t count, uint64_t base_power) const {
        return prefix_[pos + count] - prefix_[pos] * base_power;
    }

    static uint64_t hash_of(const std::vector<const DiffLine*>& old, uint64_t& base_power) {
        uint64_t h = 0;
        base_power = 1;
        for (const DiffLine* l : old) {
            h = h * kBase + line_hash(l->text);
            base_power *= kBase;
        }
        return h;
    }

  private:
    static constexpr uint64_t kBase = 0x100000001b3ULL; // odd: every power is a unit mod 2^64
    std::vector<uint64_t> prefix_;
};

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
// apply's offset search; at most `budget` positions are looked at (the count is taken off).
std::optional<size_t> find_position(const std::vector<TextLine>& pre, const LineWindows& windows,
                                    size_t floor, size_t wanted,
                                    const std::vector<const DiffLine*>& old, size_t& budget) {
    if (pre.size() < old.size())
        return std::nullopt;
    const size_t limit = pre.size() - old.size();
    if (floor > limit)
        return std::nullopt;
    // Past the end nothing matches; the nearest candidates are then the last ones.
    wanted = std::clamp(wanted, floor, limit);
    uint64_t base_power = 1;
    const uint64_t hash = LineWindows::hash_of(old, base_power);
    auto at = [&](size_t pos) {
        return windows.window(pos, old.size(), base_power) == hash && matches_at(pre, pos, old);
    };
    for (size_t delta = 0;; ++delta) {
        const bool up = wanted + delta <= limit;
        const bool down = delta > 0 && wanted >= floor + delta;
        if (!up && !down)
            return std::nullopt;
        if (budget < 2)
            throw SearchLimit();
        budget -= 2;
        if (up && at(wanted + delta))
            return wanted + delta;
        if (down && at(wanted - delta))
            return wanted - delta;
    }
}

std::string where(const FileDiff& diff, size_t hunk_index, const Hunk& hunk) {
    return (diff.new_path.empty() ? diff.old_path : diff.new_path) + ": hunk #" +
           std::to_string(hunk_index + 1) + " (patch line " + std::to_string(hunk.header_line) +
           ")";
}

std::string describe_mismatch(const FileDiff& diff, size_t hunk_index, const Hunk& hunk,
                              const std::vector<TextLine>& pre, size_t wanted,
                              const std::vector<const DiffLine*>& old) {
    const std::string where_it = where(diff, hunk_index, hunk) + " does not apply";
    for (size_t k = 0; k < old.size(); ++k) {
        size_t at = wanted + k;
        if (at >= pre.size())
            return where_it + ": the file has only " + std::to_string(pre.size()) +
                   " lines, the patch expects '" + old[k]->text + "' at line " +
                   std::to_string(at + 1);
        if (pre[at].text != old[k]->text)
            return where_it + ": line " + std::to_string(at + 1) + " is '" +
                   std::string(pre[at].text) + "', the patch expects '" + old[k]->text + "'";
    }
    return where_it + ": it overlaps the hunk before it";
}

} // namespace

PostImage apply_hunks(const FileDiff& diff, const std::string& pre_text) {
    std::vector<TextLine> pre = split(pre_text);
    const LineWindows windows(pre);
    // Hunks found where they say, or where the ones before them moved, cost a few positions
    // each; only a hostile patch (hunks that claim far-off lines) comes near this.
    size_t budget = kSearchPerLine * (pre.size() + diff.hunks.size() + 1);
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
        std::optional<size_t> pos;
        try {
            pos = find_position(pre, windows, cursor, wanted, old, budget);
        } catch (const SearchLimit&) {
            throw ApplyError(where(diff, h, hunk) + ": not placed after searching " +
                             std::to_string(kSearchPerLine) +
                             " positions per line of the file, the most ksweep check searches");
        }
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
