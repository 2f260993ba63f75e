#include "rewrite/cross_check.h"

#include "core/strings.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace fs = std::filesystem;

namespace ksweep {

const char* const kCategoryUnexplained = "unexplained";

namespace {

using Location = std::tuple<std::string, unsigned, unsigned>;

Location location_of(const Finding& f) {
    return {f.file, f.line, f.column};
}

// A macro body or argument without its comments, line continuations and outer blanks.
std::string code_of(const std::string& s) {
    return trim(std::regex_replace(s, std::regex(R"(/\*.*?\*/|//.*$)"), " "), " \t\\");
}

// The line of a "file:line" location; 0 when there is none.
unsigned line_of(const std::string& where) {
    size_t colon = where.rfind(':');
    if (colon == std::string::npos)
        return 0;
    return static_cast<unsigned>(std::strtoul(where.c_str() + colon + 1, nullptr, 10));
}

// What `constant C` in the semantic patch matches: one integer literal token.
bool is_bare_literal(const std::string& text) {
    static const std::regex literal(R"((0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*)");
    return std::regex_match(text, literal);
}

// The rule's python helper also accepts a #define body in parentheses.
bool is_literal_body(std::string body) {
    body = code_of(body);
    while (body.size() >= 2 && body.front() == '(' && body.back() == ')')
        body = code_of(body.substr(1, body.size() - 2));
    return is_bare_literal(body);
}

class TreeFiles {
  public:
    explicit TreeFiles(std::string tree) : tree_(std::move(tree)) {}

    const std::vector<std::string>& lines(const std::string& rel) {
        auto [it, inserted] = cache_.try_emplace(rel);
        if (inserted) {
            std::ifstream in(fs::path(tree_) / rel);
            for (std::string line; std::getline(in, line);)
                it->second.push_back(line);
        }
        return it->second;
    }

    // The bodies of every object-like "#define NAME body" in the file.
    std::vector<std::string> define_bodies(const std::string& rel, const std::string& name) {
        std::regex define(R"(^\s*#\s*define\s+)" + name + R"((?![\w(])(.*)$)");
        std::vector<std::string> bodies;
        const auto& text = lines(rel);
        for (size_t i = 0; i < text.size(); ++i) {
            std::smatch m;
            if (!std::regex_match(text[i], m, define))
                continue;
            std::string body = m[1].str();
            if (!body.empty() && body.back() == '\\') // continued: not a one-token body
                body += " ...";
            bodies.push_back(body);
        }
        return bodies;
    }

    const CocciParseFailures& unparsed(const std::string& rel, const std::string& spatch) {
        auto [it, inserted] = unparsed_.try_emplace(rel);
        if (inserted)
            it->second = cocci_parse_failures(spatch, (fs::path(tree_) / rel).string());
        return it->second;
    }

    // Whether line `line` (1-based) is inside braces: a #define there is in a function body.
    bool inside_braces(const std::string& rel, unsigned line) {
        const auto& text = lines(rel);
        int depth = 0;
        bool comment = false;
        for (unsigned i = 0; i + 1 < line && i < text.size(); ++i) {
            const std::string& l = text[i];
            for (size_t k = 0; k < l.size(); ++k) {
                if (comment) {
                    if (l.compare(k, 2, "*/") == 0) {
                        comment = false;
                        ++k;
                    }
                } else if (l.compare(k, 2, "/*") == 0) {
                    comment = true;
                    ++k;
                } else if (l.compare(k, 2, "//") == 0) {
                    break;
                } else if (l[k] == '"' || l[k] == '\'') {
                    char quote = l[k];
                    for (++k; k < l.size() && l[k] != quote; ++k)
                        k += l[k] == '\\';
                } else {
                    depth += (l[k] == '{') - (l[k] == '}');
                }
            }
        }
        return depth > 0;
    }

  private:
    std::string tree_;
    std::map<std::string, std::vector<std::string>> cache_;
    std::map<std::string, CocciParseFailures> unparsed_;
};

std::string file_of(const std::string& defined_at) {
    return defined_at.substr(0, defined_at.rfind(':'));
}

// Why spatch did not report a site the clang engines found.
CrossCheckDifference explain_ksweep_only(const Finding& f, TreeFiles& files,
                                         const CrossCheckOptions& options) {
    CrossCheckDifference d{f, true, kCategoryUnexplained, ""};
    auto set = [&](const char* category, std::string detail = "") {
        d.category = category;
        d.detail = std::move(detail);
        return d;
    };
    std::string named = f.constant + " at " + f.defined_at;
    if (f.in_macro_body)
        return set("call inside a #define body");
    if (f.resolution == Resolution::Enum)
        return set("enum constant", named);
    if (f.resolution == Resolution::Expression)
        return set("constant expression", f.argument + " = " + std::to_string(*f.value));
    if (f.resolution == Resolution::Macro) {
        if (!f.defined_at.empty() && file_of(f.defined_at) != f.file)
            return set(file_of(f.defined_at).ends_with(".h") ? "constant from a header"
                                                             : "constant from another file",
                       named);
        auto bodies = files.define_bodies(f.file, f.constant);
        if (bodies.size() > 1)
            return set("macro defined more than once in the file",
                       f.constant + " has " + std::to_string(bodies.size()) + " #defines");
        if (bodies.size() == 1 && !is_literal_body(bodies[0]))
            return set("macro of an expression or another macro",
                       "#define " + f.constant + " " + code_of(bodies[0]));
        if (unsigned line = line_of(f.defined_at); line && files.inside_braces(f.file, line))
            return set("#define inside a function body", named);
    }
    if (f.resolution == Resolution::Literal && !is_bare_literal(code_of(f.argument)))
        return set("argument is not a bare literal", f.argument);
    if (f.inactive)
        return set("code outside the configuration (#if 0 or an unset option)");
    if (options.probe_parse) {
        const CocciParseFailures& failures = files.unparsed(f.file, options.spatch);
        for (auto [begin, end] : failures.ranges)
            if (f.line >= begin && f.line <= end)
                return set("file spatch could not parse",
                           "lines " + std::to_string(begin) + "-" + std::to_string(end));
        const auto& text = files.lines(f.file);
        if (f.line >= 1 && f.line <= text.size() &&
            failures.bad_lines.count(trim(text[f.line - 1], " \t")))
            return set("file spatch could not parse", "spatch --parse-c lists the line as bad");
    }
    return d;
}

// Why the clang engines did not report a site spatch found. `seen` is what they said about
// the same call, if they saw it.
CrossCheckDifference explain_spatch_only(const Finding& c, const Finding* seen, TreeFiles& files) {
    CrossCheckDifference d{c, false, kCategoryUnexplained, ""};
    // spatch reports every small #define of the name; the clang engines take the one the
    // configuration selects.
    if (c.resolution == Resolution::Macro && files.define_bodies(c.file, c.constant).size() > 1) {
        d.category = "macro defined more than once: the engines took different #defines";
        d.detail = "spatch: " + std::to_string(*c.value) + " ms at " + c.defined_at;
        if (seen && seen->value)
            d.detail += ", ksweep: " + std::to_string(*seen->value) + " ms" +
                        (seen->defined_at.empty() ? "" : " at " + seen->defined_at);
        return d;
    }
    if (!seen) {
        d.category = "ksweep did not see the call";
        return d;
    }
    if (!seen->value) {
        d.category = "ksweep could not resolve the argument";
        d.detail = seen->note;
        return d;
    }
    d.category = "ksweep resolved another value";
    d.detail = std::to_string(*seen->value) + " ms (" + std::string(to_string(seen->resolution)) +
               (seen->defined_at.empty() ? "" : ", " + seen->defined_at) + ")";
    return d;
}

} // namespace

CrossCheckResult cross_check(const ScanResult& ksweep, const CocciResult& cocci,
                             const CrossCheckOptions& options) {
    CrossCheckResult result;
    std::map<Location, const Finding*> all_ksweep, ksweep_left;
    std::map<std::tuple<std::string, unsigned>, const Finding*> by_line;
    for (const auto& f : ksweep.findings) {
        all_ksweep.emplace(location_of(f), &f);
        by_line.emplace(std::make_tuple(f.file, f.line), &f);
        if (f.actionable)
            ksweep_left.emplace(location_of(f), &f);
    }
    result.ksweep_sites = ksweep_left.size();
    result.spatch_sites = cocci.findings.size();

    // Same site: same place, or same line when the engines count columns differently.
    std::vector<const Finding*> spatch_left;
    for (const auto& c : cocci.findings) {
        auto it = ksweep_left.find(location_of(c));
        if (it == ksweep_left.end())
            it = std::find_if(ksweep_left.begin(), ksweep_left.end(), [&](const auto& k) {
                return k.second->file == c.file && k.second->line == c.line;
            });
        if (it == ksweep_left.end()) {
            spatch_left.push_back(&c);
            continue;
        }
        ++result.both;
        ksweep_left.erase(it);
    }

    TreeFiles files(options.tree);
    for (const auto& [where, f] : ksweep_left) {
        auto d = explain_ksweep_only(*f, files, options);
        ++result.ksweep_only[d.category];
        result.differences.push_back(std::move(d));
    }
    for (const Finding* c : spatch_left) {
        const Finding* seen = nullptr;
        if (auto it = all_ksweep.find(location_of(*c)); it != all_ksweep.end())
            seen = it->second;
        else if (auto line = by_line.find({c->file, c->line}); line != by_line.end())
            seen = line->second;
        auto d = explain_spatch_only(*c, seen, files);
        ++result.spatch_only[d.category];
        result.differences.push_back(std::move(d));
    }
    std::sort(result.differences.begin(), result.differences.end(),
              [](const CrossCheckDifference& a, const CrossCheckDifference& b) {
                  return location_of(a.finding) < location_of(b.finding);
              });
    return result;
}

CrossCheckResult cross_check_scan(const Rule& rule, const ScanOptions& options,
                                  const ScanResult& ksweep) {
    ScanResult cocci_scan = cocci_scan_tree(rule, options);
    CocciResult cocci;
    cocci.findings = std::move(cocci_scan.findings);
    cocci.errors = std::move(cocci_scan.errors);
    CrossCheckOptions cross;
    cross.tree = options.tree;
    return cross_check(ksweep, cocci, cross);
}

} // namespace ksweep
