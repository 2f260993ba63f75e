#include "series/sweep_index.h"

#include "core/file_io.h"
#include "core/json.h"
#include "core/json_fields.h"

#include <stdexcept>

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

// The array `key` of `object` (null when absent), each entry an object.
const Json& objects(const std::string& path, const Json& object, const std::string& where,
                    const char* key) {
    static const Json kNone;
    auto it = object.find(key);
    if (it == object.end() || it->is_null())
        return kNone;
    if (!it->is_array())
        json_fail(path, where, std::string("'") + key + "' must be an array");
    for (const auto& entry : *it)
        if (!entry.is_object())
            json_fail(path, where, std::string("each entry of '") + key + "' must be an object");
    return *it;
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
    Json root;
    try {
        root = Json::parse(*content);
    } catch (const Json::parse_error& e) {
        json_fail(path, "", e.what());
    }
    if (!root.is_object() ||
        JsonFields(path, root, "").get<std::string>("format") != "ksweep-sweep-index")
        json_fail(path, "", "not a ksweep sweep index (format ksweep-sweep-index)");
    const JsonFields top(path, root, "");
    SweepIndex index;
    index.rule = top.get<std::string>("rule");
    index.tree = top.get<std::string>("tree");
    index.base = top.get<std::string>("base");
    const Json& series = objects(path, root, "", "series");
    for (size_t i = 0; i < series.size(); ++i) {
        const std::string where = "series[" + std::to_string(i) + "]";
        const JsonFields s(path, series[i], where);
        IndexSeries is;
        is.name = s.name("name"); // a folder under the output directory
        is.change_id = s.get<std::string>("change_id");
        is.version = s.get<int>("version");
        is.tree = s.get<std::string>("tree");
        is.tree_key = s.get<std::string>("tree_key");
        is.entry = s.get<std::string>("entry");
        is.branch = s.get<std::string>("branch");
        is.base = s.get<std::string>("base");
        is.to = s.get<std::vector<std::string>>("to");
        is.cc = s.get<std::vector<std::string>>("cc");
        if (is.name.empty() || is.change_id.empty())
            json_fail(path, where, "a series needs 'name' and 'change_id'");
        const Json& patches = objects(path, series[i], where, "patches");
        for (size_t j = 0; j < patches.size(); ++j) {
            const JsonFields p(path, patches[j], where + ".patches[" + std::to_string(j) + "]");
            is.patches.push_back({p.get<std::string>("key"), p.get<std::string>("subject"),
                                  p.tree_paths("files"), p.get<size_t>("sites"),
                                  p.get<std::string>("prefix_source"), p.get<std::string>("digest"),
                                  p.get<std::vector<std::string>>("to"),
                                  p.get<std::vector<std::string>>("cc")});
        }
        index.series.push_back(std::move(is));
    }
    const Json& finished = objects(path, root, "", "finished");
    for (size_t i = 0; i < finished.size(); ++i) {
        const JsonFields f(path, finished[i], "finished[" + std::to_string(i) + "]");
        index.finished.push_back({f.name("name"), f.get<std::string>("change_id"),
                                  f.get<std::string>("tree"), f.get<std::string>("why")});
    }
    const Json& left = objects(path, root, "", "left_alone");
    for (size_t i = 0; i < left.size(); ++i) {
        const JsonFields l(path, left[i], "left_alone[" + std::to_string(i) + "]");
        index.left_alone.push_back({l.get<std::string>("where"), l.get<std::string>("why")});
    }
    return index;
}

} // namespace ksweep::series
