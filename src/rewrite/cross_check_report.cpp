// Printing a cross-check: the counts first (what a reviewer reads), then every difference
// with its category and evidence (what a maintainer greps).
#include "core/json.h"
#include "rewrite/cross_check.h"

#include <cstdio>

namespace ksweep {

namespace {

std::string one_line(const std::string& s) {
    std::string out;
    for (char c : s)
        if (c != '\n' && c != '\t' && c != '\\')
            out += c;
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    return out;
}

void append_categories(std::string& out, const char* title, size_t total,
                       const std::map<std::string, size_t>& categories) {
    char line[256];
    std::snprintf(line, sizeof line, "%s: %zu\n", title, total);
    out += line;
    for (const auto& [category, count] : categories) {
        std::snprintf(line, sizeof line, "  %6zu  %s\n", count, category.c_str());
        out += line;
    }
}

size_t sum(const std::map<std::string, size_t>& counts) {
    size_t n = 0;
    for (const auto& [category, count] : counts)
        n += count;
    return n;
}

} // namespace

std::string format_cross_check_text(const CrossCheckResult& r) {
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line,
                  "Sites (0 < value < threshold): ksweep %zu, spatch %zu, both %zu.\n",
                  r.ksweep_sites, r.spatch_sites, r.both);
    out += line;
    append_categories(out, "Found by ksweep only", sum(r.ksweep_only), r.ksweep_only);
    append_categories(out, "Found by spatch only", sum(r.spatch_only), r.spatch_only);
    size_t unexplained = 0;
    for (const auto& d : r.differences)
        unexplained += d.category == kCategoryUnexplained;
    std::snprintf(line, sizeof line, "Unexplained differences: %zu\n", unexplained);
    out += line;
    if (!r.differences.empty())
        out += "\nDifferences:\n";
    for (const auto& d : r.differences) {
        const Finding& f = d.finding;
        std::string where = f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column);
        std::snprintf(line, sizeof line, "%s: %s only: %s: %s%s%s\n", where.c_str(),
                      d.found_by_ksweep ? "ksweep" : "spatch", d.category.c_str(),
                      one_line(f.call).c_str(), d.detail.empty() ? "" : "; ", d.detail.c_str());
        out += line;
    }
    return out;
}

std::string format_cross_check_json(const CrossCheckResult& r) {
    OrderedJson differences = OrderedJson::array();
    for (const auto& d : r.differences) {
        const Finding& f = d.finding;
        differences.push_back(OrderedJson{
            {"file", f.file},
            {"line", f.line},
            {"column", f.column},
            {"found_by", d.found_by_ksweep ? "ksweep" : "spatch"},
            {"category", d.category},
            {"detail", d.detail},
            {"call", f.call},
            {"value_ms", f.value ? OrderedJson(*f.value) : OrderedJson(nullptr)},
            {"resolution", to_string(f.resolution)},
        });
    }
    // Categories sorted by name, as the maps hold them.
    auto categories = [](const std::map<std::string, size_t>& counts) {
        OrderedJson out = OrderedJson::object();
        for (const auto& [category, count] : counts)
            out[category] = count;
        return out;
    };
    const OrderedJson document{
        {"ksweep_sites", r.ksweep_sites},
        {"spatch_sites", r.spatch_sites},
        {"both", r.both},
        {"ksweep_only", categories(r.ksweep_only)},
        {"spatch_only", categories(r.spatch_only)},
        {"differences", std::move(differences)},
    };
    return json_text(document);
}

} // namespace ksweep
