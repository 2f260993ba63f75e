#include "rewrite/applier.h"

#include <algorithm>
#include <stdexcept>

namespace ksweep {

bool edits_conflict(const Edit& a, const Edit& b) {
    const bool a_inserts = a.begin == a.end, b_inserts = b.begin == b.end;
    if (a_inserts && b_inserts)
        return a.begin == b.begin;
    if (a_inserts)
        return b.begin < a.begin && a.begin < b.end;
    if (b_inserts)
        return a.begin < b.begin && b.begin < a.end;
    return a.begin < b.end && b.begin < a.end;
}

std::vector<bool> accept_groups(const std::vector<EditGroup>& groups) {
    std::vector<bool> accepted(groups.size(), false);
    std::vector<const Edit*> kept;
    for (size_t i = 0; i < groups.size(); ++i) {
        const auto& edits = groups[i].edits;
        bool clash = false;
        for (size_t e = 0; e < edits.size() && !clash; ++e) {
            for (const Edit* k : kept)
                clash = clash || edits_conflict(edits[e], *k);
            for (size_t o = e + 1; o < edits.size(); ++o)
                clash = clash || edits_conflict(edits[e], edits[o]);
        }
        if (clash)
            continue;
        accepted[i] = true;
        for (const Edit& e : edits)
            kept.push_back(&e);
    }
    return accepted;
}

std::string apply_edits(const std::string& text, std::vector<Edit> edits) {
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    std::string out;
    out.reserve(text.size() + 256);
    unsigned at = 0;
    for (size_t i = 0; i < edits.size(); ++i) {
        const Edit& e = edits[i];
        if (e.end > text.size() || e.begin > e.end || e.begin < at ||
            (i > 0 && edits_conflict(edits[i - 1], e)))
            throw std::logic_error("apply_edits: conflicting or out-of-range edits");
        out.append(text, at, e.begin - at);
        out += e.text;
        at = e.end;
    }
    out.append(text, at, std::string::npos);
    return out;
}

} // namespace ksweep
