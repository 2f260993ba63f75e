#include "series/maintainer_tree.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace ksweep::series {

namespace {

// Lower case, runs of anything but [a-z0-9.] made one '-', at most 32 characters.
std::string slugified(const std::string& text) {
    std::string out;
    for (char c : text) {
        unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '.')
            out += static_cast<char>(std::tolower(u));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    if (out.size() > 32)
        out.resize(32);
    while (!out.empty() && (out.back() == '-' || out.back() == '.'))
        out.pop_back();
    return out.empty() ? "tree" : out;
}

std::string joined(std::vector<std::string> items) {
    std::sort(items.begin(), items.end());
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : ", ") + i;
    return out;
}

} // namespace

std::string tree_slug(const std::string& tree_line) {
    std::istringstream in(tree_line);
    std::vector<std::string> words;
    for (std::string w; in >> w;)
        words.push_back(w);
    // "git URL [branch]", "quilt URL", "hg URL", or a bare URL.
    std::string url = words.size() > 1 && words[0].find('/') == std::string::npos ? words[1]
                      : words.empty()                                             ? ""
                                                                                  : words[0];
    while (!url.empty() && url.back() == '/')
        url.pop_back();
    if (url.size() > 4 && url.compare(url.size() - 4, 4, ".git") == 0)
        url.resize(url.size() - 4);
    std::string name = url.substr(url.rfind('/') + 1);
    if (name == "linux" || name == "linux-2.6") {
        std::string owner = url.substr(0, url.rfind('/'));
        name = owner.substr(owner.rfind('/') + 1);
    }
    return slugified(name);
}

TreeAssignment assign_tree(const Maintainers& maintainers, const std::vector<std::string>& files) {
    TreeAssignment a;
    if (files.empty())
        return a;
    const auto sections = maintainers.sections_for(files.front());
    for (const auto* s : sections) {
        if (s->trees.empty() || s->name == "THE REST")
            continue;
        a.tree = s->trees.front();
        a.key = "T: " + a.tree;
        a.entry = s->name;
        a.slug = tree_slug(a.tree);
        return a;
    }
    // No tree named: the people and lists of the most specific section apply it.
    const MaintainerSection* own = sections.empty() ? nullptr : sections.front();
    if (!own) {
        a.key = "no MAINTAINERS entry";
        a.entry = "(none)";
        a.slug = "unmaintained";
        return a;
    }
    std::vector<std::string> people = own->maintainers;
    people.insert(people.end(), own->lists.begin(), own->lists.end());
    a.key = "M/L: " + joined(people);
    a.entry = own->name;
    a.slug = slugified(own->name);
    return a;
}

} // namespace ksweep::series
