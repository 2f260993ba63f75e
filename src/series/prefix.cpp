#include "series/prefix.h"

#include "core/shared_paths.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace ksweep::series {

using namespace ksweep::git;

namespace {

// A tag is short and has no spaces inside: "tpm", "drm/i915", "ACPI", "net/mlx5e".
bool looks_like_tag(const std::string& s) {
    if (s.empty() || s.size() > 32)
        return false;
    return std::none_of(s.begin(), s.end(), [](char c) {
        return c == ' ' || c == '\t' || c == '"' || c == '(' || c == '`';
    });
}

std::string join_tags(const std::vector<std::string>& tags, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i)
        out += (i ? ": " : "") + tags[i];
    return out;
}

bool entry_differs(git_tree* a, git_tree* b, const std::string& path) {
    git_tree_entry *ea = nullptr, *eb = nullptr;
    bool ha = git_tree_entry_bypath(&ea, a, path.c_str()) == 0;
    bool hb = git_tree_entry_bypath(&eb, b, path.c_str()) == 0;
    TreeEntry owned_a(ea), owned_b(eb);
    if (ha != hb)
        return true;
    return ha && !git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb));
}

std::string last_component(std::string path) {
    while (!path.empty() && path.back() == '/')
        path.pop_back();
    return path.substr(path.rfind('/') + 1);
}

} // namespace

std::vector<std::string> subject_tags(const std::string& subject) {
    std::string s = subject;
    // "[PATCH v2] x" when a mail subject was committed as is.
    while (!s.empty() && s.front() == '[') {
        auto close = s.find(']');
        if (close == std::string::npos)
            break;
        s.erase(0, s.find_first_not_of(' ', close + 1));
    }
    if (s.rfind("Revert ", 0) == 0 || s.rfind("Merge ", 0) == 0)
        return {};
    std::vector<std::string> tags;
    size_t pos = 0;
    for (size_t colon; (colon = s.find(": ", pos)) != std::string::npos; pos = colon + 2) {
        std::string tag = s.substr(pos, colon - pos);
        if (!looks_like_tag(tag))
            break;
        tags.push_back(tag);
    }
    // Input's "xpad - " and hwmon's "(lm90) " after the tags end the prefix themselves.
    if (!tags.empty()) {
        const std::string rest = s.substr(pos);
        auto dash = rest.find(" - ");
        if (dash != std::string::npos && looks_like_tag(rest.substr(0, dash)))
            tags.push_back(rest.substr(0, dash) + " -");
        else if (rest.size() > 2 && rest[0] == '(') {
            auto close = rest.find(") ");
            if (close != std::string::npos && looks_like_tag(rest.substr(1, close - 1)))
                tags.push_back(rest.substr(0, close + 1));
        }
    }
    return tags;
}

std::optional<std::string> modal_prefix(const std::vector<std::string>& subjects) {
    std::vector<std::vector<std::string>> tagged;
    for (const auto& s : subjects)
        if (auto tags = subject_tags(s); !tags.empty())
            tagged.push_back(std::move(tags));
    if (tagged.empty())
        return std::nullopt;
    std::vector<std::string> chosen;
    for (size_t level = 0;; ++level) {
        // Count tag `level` among subjects that share the prefix chosen so far; the first seen
        // (the most recent) wins ties.
        std::map<std::string, size_t> count;
        std::vector<std::string> order;
        size_t candidates = 0;
        for (const auto& tags : tagged) {
            if (tags.size() < level || !std::equal(chosen.begin(), chosen.end(), tags.begin()))
                continue;
            ++candidates;
            if (tags.size() == level)
                continue;
            if (count[tags[level]]++ == 0)
                order.push_back(tags[level]);
        }
        if (order.empty())
            break;
        std::string best = order.front();
        for (const auto& t : order)
            if (count[t] > count[best])
                best = t;
        // The first level takes the mode; deeper levels need a majority of their subjects.
        if (level > 0 && count[best] * 2 <= candidates)
            break;
        chosen.push_back(best);
    }
    return join_tags(chosen, chosen.size());
}

std::vector<std::string> history_subjects(git_repository* repo, const git_oid& from,
                                          const std::vector<std::string>& paths,
                                          const HistoryLimits& limits) {
    git_revwalk* raw = nullptr;
    check(git_revwalk_new(&raw, repo), "git_revwalk_new");
    RevWalk walk(raw);
    // Newest first; topological order keeps that true for commits made within one second.
    check(git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME),
          "git_revwalk_sorting");
    check(git_revwalk_push(walk.get(), &from), "git_revwalk_push");

    std::vector<std::string> subjects;
    git_oid id;
    for (size_t seen = 0; seen < limits.max_commits && subjects.size() < limits.max_subjects &&
                          git_revwalk_next(&id, walk.get()) == 0;
         ++seen) {
        Commit commit = lookup_commit(repo, id);
        if (git_commit_parentcount(commit.get()) != 1)
            continue; // merges and the root say nothing about a file's subsystem
        git_commit* parent_raw = nullptr;
        check(git_commit_parent(&parent_raw, commit.get(), 0), "git_commit_parent");
        Commit parent(parent_raw);
        Tree tree = commit_tree(commit.get());
        Tree parent_tree = commit_tree(parent.get());
        bool touches = std::any_of(paths.begin(), paths.end(), [&](const std::string& p) {
            return entry_differs(tree.get(), parent_tree.get(), p);
        });
        if (touches)
            subjects.push_back(git_commit_summary(commit.get()));
    }
    return subjects;
}

std::string with_verb_case(std::string summary, bool lower) {
    if (lower && !summary.empty())
        summary[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(summary[0])));
    return summary;
}

namespace {

// Whether most subjects that start with `prefix` go on in lower case ("Input: xpad - fix").
bool history_writes_lower(const std::vector<std::string>& subjects, const std::string& prefix) {
    size_t lower = 0, upper = 0;
    for (const auto& s : subjects) {
        if (s.compare(0, prefix.size(), prefix) != 0)
            continue;
        size_t at = s.find_first_not_of(": ", prefix.size());
        if (at == std::string::npos)
            continue;
        unsigned char c = static_cast<unsigned char>(s[at]);
        lower += std::islower(c) ? 1 : 0;
        upper += std::isupper(c) ? 1 : 0;
    }
    return lower > upper;
}

} // namespace

size_t subjects_agreeing(const std::vector<std::string>& subjects, const std::string& prefix) {
    size_t levels = 1;
    for (size_t at = prefix.find(": "); at != std::string::npos; at = prefix.find(": ", at + 2))
        ++levels;
    size_t n = 0;
    for (const auto& s : subjects) {
        const auto tags = subject_tags(s);
        n += tags.size() >= levels && join_tags(tags, levels) == prefix ? 1 : 0;
    }
    return n;
}

std::string describe_paths(const std::vector<std::string>& paths) {
    if (paths.empty())
        return "these files";
    if (paths.size() == 1)
        return paths.front();
    std::string common = paths.front().substr(0, paths.front().rfind('/') + 1);
    for (const auto& p : paths)
        while (!common.empty() && p.compare(0, common.size(), common) != 0)
            common = common.substr(0, common.rfind('/', common.size() - 2) + 1);
    return std::to_string(paths.size()) + " files" + (common.empty() ? "" : " in " + common);
}

std::string prefix_as_written(const std::string& prefix) {
    if (prefix.empty())
        return "";
    const char last = prefix.back();
    return prefix + (last == ':' || last == '-' || last == ')' ? " " : ": ");
}

PrefixChoice choose_prefix(const std::vector<std::string>* history, const Maintainers& maintainers,
                           const std::string& file, const std::string& module,
                           const SubjectTable& table, const std::string& touching) {
    const std::string what = touching.empty() ? "these files" : touching;
    const size_t capped = HistoryLimits{}.max_subjects;
    std::string why_not = "no history: a scratch repository";
    size_t agreeing = 0, n = 0;
    if (history) {
        n = history->size();
        const std::string of = std::to_string(n) + (n >= capped ? " latest" : "") +
                               (n == 1 ? " commit" : " commits") + " touching " + what;
        const auto prefix = modal_prefix(*history);
        agreeing = prefix ? subjects_agreeing(*history, *prefix) : 0;
        if (prefix && agreeing >= kMinAgreeingSubjects)
            return {*prefix, history_writes_lower(*history, *prefix),
                    "history (" + std::to_string(agreeing) + " of " + of + ")", agreeing, n};
        if (n == 0)
            why_not = "history: no commit touches " + what;
        else if (!prefix)
            why_not = "history: none of " + of + " has a prefix";
        else
            why_not = "history: " + std::to_string(agreeing) + " of " + of + " " +
                      (agreeing == 1 ? "writes" : "write") + " '" + prefix_as_written(*prefix) +
                      "', fewer than " + std::to_string(kMinAgreeingSubjects);
    }
    if (auto m = table.match_for(file, module)) {
        std::string prefix = m->prefix;
        // "ASoC: codecs: wm8904:" is tags like history's prefixes; "Input: xpad -" and
        // "hwmon: (lm90)" keep the separator the subject needs.
        if (prefix.back() == ':')
            prefix.pop_back();
        return {prefix, m->entry->lower_verb,
                "table " + shareable_path(table.source_path) + ":" +
                    std::to_string(m->entry->line) + " (" + why_not + ")",
                agreeing, n};
    }
    return {prefix_from_path(maintainers, file, module), false,
            "MAINTAINERS and path (" + why_not + ")", agreeing, n};
}

std::string prefix_from_maintainers(const Maintainers& maintainers, const std::string& file,
                                    const std::string& module, const SubjectTable& table) {
    return choose_prefix(nullptr, maintainers, file, module, table).prefix;
}

std::string prefix_from_maintainers(const Maintainers& maintainers, const std::string& file,
                                    const std::string& module) {
    return prefix_from_maintainers(maintainers, file, module, shipped_subject_table());
}

std::string prefix_from_path(const Maintainers& maintainers, const std::string& file,
                             const std::string& module) {
    std::string section_dir;
    for (const auto* s : maintainers.sections_for(file)) {
        // The deepest directory pattern that contains the file names the subsystem.
        for (const auto& pattern : s->file_patterns)
            if (pattern.back() == '/' && file.rfind(pattern, 0) == 0 &&
                pattern.size() > section_dir.size())
                section_dir = pattern;
        if (!section_dir.empty())
            break;
    }
    const std::string dir = file.substr(0, file.rfind('/') + 1);
    if (section_dir.empty())
        section_dir = dir;
    // Directories that group drivers by kind do not name a subsystem: drivers/i2c/busses/ is
    // "i2c".
    static const std::set<std::string> kGeneric = {"busses", "algos",    "host", "core",
                                                   "common", "platform", "chips"};
    std::string tag_dir = section_dir;
    // Climb out of generic directories, but never up to a top-level one ("drivers/").
    while (kGeneric.count(last_component(tag_dir)) &&
           std::count(tag_dir.begin(), tag_dir.end(), '/') > 2)
        tag_dir = tag_dir.substr(0, tag_dir.rfind('/', tag_dir.size() - 2) + 1);
    std::string tag = last_component(tag_dir);

    // The driver: its module (or file), named after its own subdirectory when that is what the
    // module name is made of (tpm_st33zp24 in st33zp24/), without the "i2c-" style prefix that
    // repeats the subsystem.
    std::string driver =
        module.empty() ? file.substr(file.rfind('/') + 1, file.rfind('.') - file.rfind('/') - 1)
                       : module;
    if (dir.size() > section_dir.size()) {
        std::string subdir = last_component(
            dir.substr(0, section_dir.size() + dir.substr(section_dir.size()).find('/')));
        if (driver.find(subdir) != std::string::npos)
            driver = subdir;
    }
    if (driver.rfind(tag + "-", 0) == 0 && driver.size() > tag.size() + 1)
        driver = driver.substr(tag.size() + 1);
    if (driver.empty() || driver == tag)
        return tag;
    return tag + ": " + driver;
}

} // namespace ksweep::series
