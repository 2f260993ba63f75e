#include "check/site_diff.h"

#include "check/definitions.h"
#include "rewrite/macro_uses.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace ksweep::check {

namespace {

// A call's text without layout: "msleep (FOO)" and "msleep(FOO)" are one call.
std::string squeezed(std::string_view text) {
    std::string out;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c)) && c != '\\')
            out += c;
    return out;
}

struct Keyed {
    std::string key;
    const Finding* finding;
    bool via_macro;
};

// Direct calls by their text; a macro use by its text and which of its calls it is.
std::vector<Keyed> keyed_sites(const ScanResult& scan) {
    std::vector<Keyed> out;
    for (const Finding& f : scan.findings)
        out.push_back({"call:" + squeezed(f.call), &f, false});
    std::map<unsigned, unsigned> ordinal;
    for (const Finding& f : scan.macro_uses)
        out.push_back(
            {"use:" + squeezed(f.call) + "#" + std::to_string(ordinal[f.call_begin]++), &f, true});
    return out;
}

// How often the text holds a use of `macro` that reads `use` (squeezed).
size_t uses_in(const std::string& text, const std::string& macro, const std::string& use) {
    const FileIndex index(text);
    const auto& tokens = index.tokens();
    size_t count = 0;
    for (size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].kind != FileToken::Identifier || tokens[i].text != macro)
            continue;
        size_t end = i;
        if (i + 1 < tokens.size() && tokens[i + 1].text == "(") {
            int depth = 0;
            for (end = i + 1; end < tokens.size(); ++end) {
                depth += (tokens[end].text == "(") - (tokens[end].text == ")");
                if (depth == 0)
                    break;
            }
        }
        if (end < tokens.size() && squeezed(std::string_view(text).substr(
                                       tokens[i].begin, tokens[end].end - tokens[i].begin)) == use)
            ++count;
    }
    return count;
}

// What the file had: key -> the value each had (unknown where the scan did not compare).
std::multimap<std::string, std::optional<long long>> previous(const Before& before,
                                                              const std::vector<Keyed>& sites) {
    std::multimap<std::string, std::optional<long long>> had;
    if (before.scan)
        for (const Keyed& k : keyed_sites(*before.scan))
            had.emplace(k.key, k.finding->value);
    if (before.text && !before.values) {
        // The lexical scan before found the direct calls; the macro uses are found by text.
        std::set<std::string> counted;
        for (const Keyed& k : sites)
            if (k.via_macro && counted.insert(k.key).second)
                for (size_t n =
                         uses_in(*before.text, k.finding->constant, squeezed(k.finding->call));
                     n > 0; --n)
                    had.emplace(k.key, std::nullopt);
    }
    return had;
}

bool is_candidate(const Finding& f) {
    return f.actionable || names_unevaluated_constant(f);
}

// Whether the call would have been actionable with the value it had before the patch.
bool actionable_with(const Rule& rule, const ScanResult& after, Finding f,
                     std::optional<long long> value) {
    f.value = value;
    judge_finding(f, rule, after.hz, after.extra_jiffy);
    return f.actionable;
}

bool on_added_line(const Finding& f, const std::set<unsigned>& added) {
    const unsigned last =
        f.line + static_cast<unsigned>(std::count(f.call.begin(), f.call.end(), '\n'));
    for (unsigned line = f.line; line <= last; ++line)
        if (added.count(line))
            return true;
    return false;
}

} // namespace

bool values_matter(const ScanResult& after, const Before& before,
                   const std::set<std::string>* naming) {
    const std::vector<Keyed> sites = keyed_sites(after);
    const auto had = previous(before, sites);
    return std::any_of(sites.begin(), sites.end(), [&](const Keyed& k) {
        return is_candidate(*k.finding) && had.count(k.key) &&
               (!naming || names_any(k.finding->call, *naming));
    });
}

bool names_unevaluated_constant(const Finding& f) {
    if (!f.unevaluated || f.value)
        return false;
    const FileIndex tokens(f.argument);
    return std::any_of(tokens.tokens().begin(), tokens.tokens().end(), [](const FileToken& t) {
        return t.kind == FileToken::Identifier &&
               std::none_of(t.text.begin(), t.text.end(),
                            [](char c) { return std::islower(static_cast<unsigned char>(c)); });
    });
}

std::vector<NewSite> new_sites(const Rule& rule, const ScanResult& after, const Before& before,
                               const std::set<unsigned>& added,
                               const std::set<std::string>& changed) {
    std::vector<Keyed> sites = keyed_sites(after);
    std::multimap<std::string, std::optional<long long>> had = previous(before, sites);
    // Calls the patch did not touch claim their old selves first, so that a moved call is
    // excused by its removed line and not by an unchanged twin.
    std::stable_partition(sites.begin(), sites.end(),
                          [&](const Keyed& k) { return !on_added_line(*k.finding, added); });

    std::vector<NewSite> out;
    for (const Keyed& k : sites) {
        const Finding& f = *k.finding;
        auto [first, last] = had.equal_range(k.key);
        const bool same_text = first != last;
        auto same = first;
        if (before.values)
            same = std::find_if(first, last, [&](const auto& h) { return h.second == f.value; });
        const bool same_call = same != last;
        // The same text with another value: its old self is used up all the same.
        const std::optional<long long> old_value = same_call   ? same->second
                                                   : same_text ? first->second
                                                               : std::nullopt;
        if (same_text)
            had.erase(same_call ? same : first);
        NewSite site{&f, k.via_macro, on_added_line(f, added), false};
        if (f.actionable) {
            // A call the patch does not touch that was small already is not brought in by it,
            // whatever it now sleeps.
            const bool was_small =
                same_text && !site.on_added_line && actionable_with(rule, after, f, old_value);
            if (!same_call && !was_small)
                out.push_back(site);
            continue;
        }
        // No value: a constant nothing could evaluate is reported where the patch brings the
        // call in, or changes a name it depends on.
        if (names_unevaluated_constant(f) && (!same_text || names_any(f.argument, changed))) {
            site.unresolved = true;
            out.push_back(site);
        }
    }
    std::sort(out.begin(), out.end(), [](const NewSite& a, const NewSite& b) {
        return a.finding->line != b.finding->line ? a.finding->line < b.finding->line
                                                  : a.finding->column < b.finding->column;
    });
    return out;
}

} // namespace ksweep::check
