// Printing a cross-check: the counts first (what a reviewer reads), then every difference
// with its category and evidence (what a maintainer greps).
#include "rewrite/cross_check.h"

#include <cstdio>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

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
    std::string out;
    llvm::raw_string_ostream os(out);
    llvm::json::OStream json(os, 2);
    auto categories = [&](const char* key, const std::map<std::string, size_t>& counts) {
        json.attributeObject(key, [&] {
            for (const auto& [category, count] : counts)
                json.attribute(category, static_cast<int64_t>(count));
        });
    };
    json.object([&] {
        json.attribute("ksweep_sites", static_cast<int64_t>(r.ksweep_sites));
        json.attribute("spatch_sites", static_cast<int64_t>(r.spatch_sites));
        json.attribute("both", static_cast<int64_t>(r.both));
        categories("ksweep_only", r.ksweep_only);
        categories("spatch_only", r.spatch_only);
        json.attributeArray("differences", [&] {
            for (const auto& d : r.differences)
                json.object([&] {
                    const Finding& f = d.finding;
                    json.attribute("file", f.file);
                    json.attribute("line", f.line);
                    json.attribute("column", f.column);
                    json.attribute("found_by", d.found_by_ksweep ? "ksweep" : "spatch");
                    json.attribute("category", d.category);
                    json.attribute("detail", d.detail);
                    json.attribute("call", f.call);
                    json.attribute("value_ms",
                                   f.value_ms ? llvm::json::Value(*f.value_ms) : nullptr);
                    json.attribute("resolution", std::string(to_string(f.resolution)));
                });
        });
    });
    os << "\n";
    return os.str();
}

} // namespace ksweep
