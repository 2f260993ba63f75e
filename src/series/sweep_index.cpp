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

std::string validation_json(const SeriesValidation& v) {
    std::string out = "{\"report\": " + json_quote(v.report) +
                      ", \"passed\": " + (v.passed ? "true" : "false") +
                      ", \"patches\": " + std::to_string(v.patches) +
                      ", \"proven_l4\": " + std::to_string(v.proven()) +
                      ", \"error\": " + json_quote(v.error) + ", \"levels\": [";
    for (size_t l = 0; l < v.levels.size(); ++l)
        out += std::string(l ? ", " : "") + "{\"level\": " + std::to_string(l + 1) +
               ", \"passed\": " + std::to_string(v.levels[l].passed) +
               ", \"failed\": " + std::to_string(v.levels[l].failed) +
               ", \"other\": " + std::to_string(v.levels[l].other) + "}";
    return out + "]}";
}

// "3/4": passed of the patches, per level, for a table cell.
std::string level_cell(const SeriesValidation& v, size_t level) {
    const LevelCounts& c = v.levels[level];
    std::string text = std::to_string(c.passed) + "/" + std::to_string(v.patches);
    return c.failed ? text + " (" + std::to_string(c.failed) + " failed)" : text;
}

SeriesValidation read_validation(const std::string& path, const Json& object,
                                 const std::string& where) {
    const JsonFields v(path, object, where);
    SeriesValidation out;
    out.report = v.get<std::string>("report");
    out.passed = v.get<bool>("passed");
    out.patches = v.get<size_t>("patches");
    out.error = v.get<std::string>("error");
    const Json& levels = objects(path, object, where, "levels");
    if (levels.size() != out.levels.size())
        json_fail(path, where, "'levels' must list L1 to L4");
    for (size_t l = 0; l < levels.size(); ++l) {
        const JsonFields c(path, levels[l], where + ".levels[" + std::to_string(l) + "]");
        out.levels[l] = {c.get<size_t>("passed"), c.get<size_t>("failed"), c.get<size_t>("other")};
    }
    return out;
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
    size_t validated = 0, proven = 0;
    for (const auto& s : index.series)
        if (s.validation)
            validated += s.validation->patches, proven += s.validation->proven();
    out += "  \"totals\": {\"series\": " + std::to_string(index.series.size()) +
           ", \"patches\": " + std::to_string(patches) + ", \"sites\": " + std::to_string(sites) +
           ", \"left_alone\": " + std::to_string(index.left_alone.size()) +
           ", \"validated_patches\": " + std::to_string(validated) +
           ", \"proven_l4\": " + std::to_string(proven) + "},\n";
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
               ",\n     \"cc\": " + strings(s.cc) +
               (s.validation ? ",\n     \"validation\": " + validation_json(*s.validation) : "") +
               ",\n     \"patches\": [";
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

// The L1..L4 and report cells of a series' row ("" when no series was validated).
std::string validation_cells(const IndexSeries& s, bool any_validated) {
    if (!any_validated)
        return "";
    if (!s.validation)
        return " - | - | - | - | not validated |";
    const SeriesValidation& v = *s.validation;
    if (!v.error.empty())
        return " - | - | - | - | " + cell(v.error) + " |";
    std::string out;
    for (size_t l = 0; l < v.levels.size(); ++l)
        out += " " + level_cell(v, l) + " |";
    return out + " [" + (v.passed ? "passed" : "FAILED") + "](" + v.report + "/report.md) |";
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
    size_t validated = 0, proven = 0;
    bool any_validated = false;
    for (const auto& s : index.series)
        if (s.validation)
            any_validated = true, validated += s.validation->patches,
            proven += s.validation->proven();
    if (any_validated)
        out += "Validated (`ksweep validate --series` on this folder): " + std::to_string(proven) +
               " of " + std::to_string(validated) +
               " patches proven at L4 (booted with their device, baseline and patched).\n\n";
    out += "| series | version | tree | MAINTAINERS entry | patches | sites | To | Cc |";
    out += any_validated ? " L1 | L2 | L3 | L4 | report |\n" : "\n";
    out += "|---|---:|---|---|---:|---:|---|---|";
    out += any_validated ? "---|---|---|---|---|\n" : "\n";
    for (const auto& s : index.series)
        out += "| [" + s.name + "](" + s.name + "/) | " + std::to_string(s.version) + " | " +
               cell(s.tree.empty() ? "(none: " + s.tree_key + ")" : s.tree) + " | " +
               cell(s.entry) + " | " + std::to_string(s.patches.size()) + " | " +
               std::to_string(s.sites()) + " | " + cell(joined(s.to, ", ")) + " | " +
               cell(joined(s.cc, ", ")) + " |" + validation_cells(s, any_validated) + "\n";
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
        if (auto v = series[i].find("validation"); v != series[i].end() && !v->is_null()) {
            if (!v->is_object())
                json_fail(path, where, "'validation' must be an object");
            is.validation = read_validation(path, *v, where + ".validation");
        }
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
