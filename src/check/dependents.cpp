#include "check/dependents.h"

#include "check/definitions.h"

#include <algorithm>
#include <filesystem>
#include <map>

namespace fs = std::filesystem;

namespace ksweep::check {

namespace {

bool is_identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether `text` holds `word` as a whole identifier (a plain search: comments count too).
bool has_word(std::string_view text, std::string_view word) {
    for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        const bool starts = at == 0 || !is_identifier_char(text[at - 1]);
        const size_t end = at + word.size();
        if (starts && (end == text.size() || !is_identifier_char(text[end])))
            return true;
    }
    return false;
}

bool has_any(std::string_view text, const std::set<std::string>& words) {
    return std::any_of(words.begin(), words.end(),
                       [&](const std::string& w) { return has_word(text, w); });
}

bool is_c_source(const fs::path& p) {
    return p.extension() == ".c" || p.extension() == ".h";
}

// Tree-relative C files under `scope` on disk and in the state's changed files.
std::set<std::string> files_in(const TreeState& state, const std::string& tree,
                               const std::string& scope) {
    std::set<std::string> files;
    const fs::path root = fs::path(tree) / scope;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec);
    for (const fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        // .git and friends; from the top, tools/ and Documentation/ hold no kernel code.
        const bool skip_dir =
            name.starts_with(".") ||
            (scope.empty() && it.depth() == 0 && (name == "tools" || name == "Documentation"));
        if (skip_dir && it->is_directory(ec)) {
            it.disable_recursion_pending();
            continue;
        }
        if (is_c_source(it->path()) && it->is_regular_file(ec))
            files.insert(it->path().lexically_relative(tree).generic_string());
    }
    for (const auto& [path, text] : state.changed()) {
        if (scope.empty() || path.starts_with(scope + "/")) {
            if (text && is_c_source(path))
                files.insert(path);
            else
                files.erase(path);
        }
    }
    return files;
}

} // namespace

std::string header_scope(const std::string& header) {
    const fs::path p(header);
    auto first = p.begin();
    if (first != p.end() && *first == "include")
        return "";
    if (first != p.end() && *first == "arch") {
        auto second = std::next(first);
        if (second != p.end() && std::next(second) != p.end() && *std::next(second) == "include")
            return "";
    }
    return p.parent_path().generic_string();
}

Dependents find_dependents(const TreeState& state, const std::string& tree,
                           const std::vector<std::string>& headers, std::set<std::string> names,
                           const std::vector<std::string>& functions) {
    Dependents out;
    std::set<std::string> scopes;
    for (const std::string& h : headers)
        scopes.insert(header_scope(h));
    if (scopes.count(""))
        scopes = {""};
    // A scope inside another is searched with it.
    for (auto it = scopes.begin(); it != scopes.end();) {
        const bool inside = std::any_of(scopes.begin(), scopes.end(), [&](const std::string& s) {
            return s != *it && it->starts_with(s + "/");
        });
        it = inside ? scopes.erase(it) : std::next(it);
    }
    out.scope.assign(scopes.begin(), scopes.end());

    std::map<std::string, std::string> texts; // the files that name a changed name
    std::set<std::string> searched;
    std::set<std::string> candidates;
    for (const std::string& scope : out.scope)
        for (const std::string& f : files_in(state, tree, scope))
            candidates.insert(f);
    // A header that defines a macro in terms of a changed name changes that macro too: search
    // again for it, three rounds deep.
    std::set<std::string> fresh = names;
    for (int round = 0; round < 3 && !fresh.empty(); ++round) {
        std::set<std::string> widened;
        for (const std::string& f : candidates) {
            if (texts.count(f))
                continue;
            auto text = state.read(f);
            out.files_read += round == 0;
            if (!text || !has_any(*text, fresh))
                continue;
            texts[f] = std::move(*text);
            if (f.ends_with(".h")) {
                std::set<std::string> grown = names;
                add_dependent_names(definitions_in(texts[f]), grown);
                for (const std::string& n : grown)
                    if (!names.count(n))
                        widened.insert(n);
            }
        }
        names.insert(widened.begin(), widened.end());
        fresh = std::move(widened);
    }
    out.names = names;

    // Only files that could sleep on a changed name: they call a rule function, or a macro
    // among the names whose definition does.
    std::set<std::string> sleepers(functions.begin(), functions.end());
    std::vector<Definitions> header_defs;
    for (const auto& [path, text] : texts)
        if (path.ends_with(".h"))
            header_defs.push_back(definitions_in(text));
    for (bool grew = true; grew;) {
        grew = false;
        for (const Definitions& defs : header_defs)
            for (const auto& [name, macro] : defs.macros)
                if (names.count(name) && !sleepers.count(name) && has_any(macro.text, sleepers))
                    grew = sleepers.insert(name).second;
    }
    for (const auto& [path, text] : texts)
        if (has_any(text, sleepers))
            out.files.push_back(path);
    return out;
}

} // namespace ksweep::check
