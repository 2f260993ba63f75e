#include "series/sweep_index.h"

#include "core/file_io.h"
#include "core/json.h"

#include <stdexcept>
#include <yaml-cpp/yaml.h>

namespace ksweep::series {

namespace {

std::string strings(const std::vector<std::string>& items) {
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + json_quote(items[i]);
    return out + "]";
}

std::string joined(const std::vector<std::string>& items, const char* sep) {
    std::string out;
    for (const auto& i : items)
        out += (out.empty() ? "" : sep) + i;
    return out;
}

// Markdown table cells: '|' would end the cell.
std::string cell(std::string s) {
    for (size_t at = 0; (at = s.find('|', at)) != std::string::npos; at += 2)
        s.replace(at, 1, "\\|");
    return s;
}

[[noreturn]] void fail(const std::string& path, const YAML::Node& node, const std::string& what) {
    throw std::runtime_error(path + ":" + std::to_string(node.Mark().line + 1) + ": " + what);
}

std::string text(const std::string& path, const YAML::Node& map, const char* key) {
    const YAML::Node n = map[key];
    if (!n || n.IsNull())
        return "";
    if (!n.IsScalar())
        fail(path, n, std::string("'") + key + "' must be a string");
    return n.as<std::string>();
}

std::vector<std::string> text_list(const std::string& path, const YAML::Node& map,
                                   const char* key) {
    std::vector<std::string> out;
    const YAML::Node n = map[key];
    if (!n)
        return out;
    if (!n.IsSequence())
        fail(path, n, std::string("'") + key + "' must be a list of strings");
    for (const auto& item : n)
        out.push_back(item.as<std::string>());
    return out;
}

template <typename T> T number(const std::string& path, const YAML::Node& map, const char* key) {
    const YAML::Node n = map[key];
    if (!n)
        return T();
    try {
        return n.as<T>();
    } catch (const YAML::Exception&) {
        fail(path, n, std::string("'") + key + "' must be a number");
    }
}

const YAML::Node list(const std::string& path, const YAML::Node& map, const char* key) {
    const YAML::Node n = map[key];
    if (n && !n.IsSequence())
        fail(path, n, std::string("'") + key + "' must be a list");
    return n;
}

} // namespace

size_t IndexSeries::sites() const {
    size_t n = 0;
    for (const auto& p : patches)
        n += p.sites;
    return n;
}

std::string render_index_json(const SweepIndex& index) {
    std::string out = "{\n  \"format\": \"ksweep-sweep-index\",\n  \"format_version\": 1,\n";
    out += "  \"rule\": " + json_quote(index.rule) + ",\n";
    out += "  \"tree\": " + json_quote(index.tree) + ",\n";
    out += "  \"base\": " + json_quote(index.base) + ",\n";
    size_t patches = 0, sites = 0;
    for (const auto& s : index.series)
        patches += s.patches.size(), sites += s.sites();
    out += "  \"totals\": {\"series\": " + std::to_string(index.series.size()) +
           ", \"patches\": " + std::to_string(patches) + ", \"sites\": " + std::to_string(sites) +
           ", \"left_alone\": " + std::to_string(index.left_alone.size()) + "},\n";
    out += "  \"series\": [";
    for (size_t i = 0; i < index.series.size(); ++i) {
        const auto& s = index.series[i];
        out += std::string(i ? "," : "") + "\n    {\"name\": " + json_quote(s.name) +
               ", \"change_id\": " + json_quote(s.change_id) +
               ", \"version\": " + std::to_string(s.version) +
               ",\n     \"tree\": " + json_quote(s.tree) +
               ", \"tree_key\": " + json_quote(s.tree_key) + ", \"entry\": " + json_quote(s.entry) +
               ",\n     \"branch\": " + json_quote(s.branch) + ", \"base\": " + json_quote(s.base) +
               ", \"sites\": " + std::to_string(s.sites()) + ",\n     \"to\": " + strings(s.to) +
               ",\n     \"cc\": " + strings(s.cc) + ",\n     \"patches\": [";
        for (size_t j = 0; j < s.patches.size(); ++j) {
            const auto& p = s.patches[j];
            out += std::string(j ? "," : "") + "\n       {\"key\": " + json_quote(p.key) +
                   ", \"subject\": " + json_quote(p.subject) + ", \"files\": " + strings(p.files) +
                   ", \"sites\": " + std::to_string(p.sites) +
                   ", \"prefix_source\": " + json_quote(p.prefix_source) +
                   ", \"digest\": " + json_quote(p.digest) + ", \"to\": " + strings(p.to) +
                   ", \"cc\": " + strings(p.cc) + "}";
        }
        out += "]}";
    }
    out += "\n  ],\n  \"finished\": [";
    for (size_t i = 0; i < index.finished.size(); ++i) {
        const auto& f = index.finished[i];
        out += std::string(i ? "," : "") + "\n    {\"name\": " + json_quote(f.name) +
               ", \"change_id\": " + json_quote(f.change_id) + ", \"tree\": " + json_quote(f.tree) +
               ", \"why\": " + json_quote(f.why) + "}";
    }
    out += "\n  ],\n  \"left_alone\": [";
    for (size_t i = 0; i < index.left_alone.size(); ++i)
        out += std::string(i ? "," : "") +
               "\n    {\"where\": " + json_quote(index.left_alone[i].where) +
               ", \"why\": " + json_quote(index.left_alone[i].why) + "}";
    return out + "\n  ]\n}\n";
}

std::string render_index_markdown(const SweepIndex& index) {
    size_t patches = 0, sites = 0;
    for (const auto& s : index.series)
        patches += s.patches.size(), sites += s.sites();
    std::string out = "# ksweep sweep: " + index.rule + "\n\n";
    out += "Tree `" + index.tree + "`, base `" + index.base +
           "`: " + std::to_string(index.series.size()) + " series, " + std::to_string(patches) +
           " patches, " + std::to_string(sites) + " call sites; " +
           std::to_string(index.left_alone.size()) + " left alone.\n\n";
    out += "| series | version | tree | MAINTAINERS entry | patches | sites | To | Cc |\n";
    out += "|---|---:|---|---|---:|---:|---|---|\n";
    for (const auto& s : index.series)
        out += "| [" + s.name + "](" + s.name + "/) | " + std::to_string(s.version) + " | " +
               cell(s.tree.empty() ? "(none: " + s.tree_key + ")" : s.tree) + " | " +
               cell(s.entry) + " | " + std::to_string(s.patches.size()) + " | " +
               std::to_string(s.sites()) + " | " + cell(joined(s.to, ", ")) + " | " +
               cell(joined(s.cc, ", ")) + " |\n";
    for (const auto& s : index.series) {
        out +=
            "\n## " + s.name + "\n\nchange-id `" + s.change_id + "`, branch `" + s.branch + "`\n\n";
        for (const auto& p : s.patches)
            out += "- " + p.subject + " (" + std::to_string(p.sites) + " site" +
                   (p.sites == 1 ? "" : "s") + "; " + joined(p.files, ", ") + "; prefix from " +
                   p.prefix_source + ")\n";
    }
    if (!index.finished.empty()) {
        out += "\n## Finished\n\n";
        for (const auto& f : index.finished)
            out += "- " + f.name + " (change-id `" + f.change_id + "`): " + f.why + "\n";
    }
    out += "\n## Left alone\n\n";
    if (index.left_alone.empty())
        out += "Nothing.\n";
    for (const auto& l : index.left_alone)
        out += "- " + l.where + ": " + l.why + "\n";
    return out;
}

SweepIndex load_index(const std::string& path) {
    const auto content = read_file(path);
    if (!content)
        throw std::runtime_error(path + ": cannot read");
    YAML::Node root;
    try {
        root = YAML::Load(*content);
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(path + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    if (!root.IsMap() || text(path, root, "format") != "ksweep-sweep-index")
        fail(path, root, "not a ksweep sweep index (format ksweep-sweep-index)");
    SweepIndex index;
    index.rule = text(path, root, "rule");
    index.tree = text(path, root, "tree");
    index.base = text(path, root, "base");
    if (const auto series = list(path, root, "series"))
        for (const auto& s : series) {
            IndexSeries is;
            is.name = text(path, s, "name");
            is.change_id = text(path, s, "change_id");
            is.version = number<int>(path, s, "version");
            is.tree = text(path, s, "tree");
            is.tree_key = text(path, s, "tree_key");
            is.entry = text(path, s, "entry");
            is.branch = text(path, s, "branch");
            is.base = text(path, s, "base");
            is.to = text_list(path, s, "to");
            is.cc = text_list(path, s, "cc");
            if (is.name.empty() || is.change_id.empty())
                fail(path, s, "a series needs 'name' and 'change_id'");
            if (const auto patches = list(path, s, "patches"))
                for (const auto& p : patches)
                    is.patches.push_back({text(path, p, "key"), text(path, p, "subject"),
                                          text_list(path, p, "files"),
                                          number<size_t>(path, p, "sites"),
                                          text(path, p, "prefix_source"), text(path, p, "digest"),
                                          text_list(path, p, "to"), text_list(path, p, "cc")});
            index.series.push_back(std::move(is));
        }
    if (const auto finished = list(path, root, "finished"))
        for (const auto& f : finished)
            index.finished.push_back({text(path, f, "name"), text(path, f, "change_id"),
                                      text(path, f, "tree"), text(path, f, "why")});
    if (const auto left = list(path, root, "left_alone"))
        for (const auto& l : left)
            index.left_alone.push_back({text(path, l, "where"), text(path, l, "why")});
    return index;
}

} // namespace ksweep::series
