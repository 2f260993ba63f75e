// ksweep scan: every call the rule looks at, with its value, as a table or as JSON
// (docs/scan-json.md is the contract).
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/output.h"
#include "cli/tree_build.h"
#include "cli/tree_paths.h"
#include "core/json.h"
#include "core/rule.h"
#include "kbuild/kernel_tree.h"
#include "rewrite/cross_check.h"
#include "rewrite/scanner.h"

#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace ksweep::cli {

using namespace ksweep::kbuild;

namespace {

Json string_or_null(const std::string& s) {
    return s.empty() ? Json(nullptr) : Json(s);
}

Json finding_json(const Finding& f) {
    return Json{
        {"file", f.file},
        {"line", f.line},
        {"column", f.column},
        {"function", string_or_null(f.function)},
        {"callee", f.callee},
        {"call", f.call},
        {"argument", f.argument},
        {"value_ms", f.value_ms ? Json(*f.value_ms) : Json(nullptr)},
        {"resolution", std::string(to_string(f.resolution))},
        {"constant", string_or_null(f.constant)},
        {"defined_at", string_or_null(f.defined_at)},
        {"engine", std::string(to_string(f.engine))},
        {"predicted_sleep_ms", f.value_ms ? json_number(f.predicted_sleep_ms) : Json(nullptr)},
        {"actionable", f.actionable},
        {"inactive", f.inactive},
        {"in_macro_body", f.in_macro_body},
        {"note", string_or_null(f.note)},
    };
}

struct Summary {
    std::map<std::string, size_t> by_resolution, by_engine;
    size_t actionable = 0, inactive = 0;
    std::set<std::string> files;

    explicit Summary(const ScanResult& r) {
        for (auto kind : {"literal", "macro", "enum", "expression", "unresolved"})
            by_resolution[kind] = 0;
        for (const auto& f : r.findings) {
            ++by_resolution[std::string(to_string(f.resolution))];
            ++by_engine[std::string(to_string(f.engine))];
            actionable += f.actionable && !f.inactive;
            inactive += f.inactive;
            files.insert(f.file);
        }
    }
};

void print_json(const std::string& tree, const Rule& rule, const ScanResult& r,
                const TreeBuild& build) {
    Json findings = Json::array();
    for (const auto& f : r.findings)
        findings.push_back(finding_json(f));
    Summary s(r);
    // Keys sorted (Json is a sorted map), as this output has always had them.
    Json root{
        {"tree", tree},
        {"rule", rule.name},
        {"threshold_ms", rule.threshold_ms},
        {"hz", r.hz},
        {"hz_source", build.hz.source},
        {"kernel_version", to_string(r.kernel)},
        {"build_dir", string_or_null(r.build_dir)},
        {"build", kbuild::describe(build.build, build.hz)},
        {"findings", std::move(findings)},
        {"summary", Json{{"findings", r.findings.size()},
                         {"actionable", s.actionable},
                         {"inactive", s.inactive},
                         {"by_resolution", s.by_resolution},
                         {"files_scanned", r.files_scanned},
                         {"files_with_findings", s.files.size()},
                         {"files_semantic", r.files_semantic},
                         {"files_fallback", r.files_fallback}}},
        {"errors", r.errors},
    };
    std::fputs(json_text(root).c_str(), stdout);
}

std::string one_line(const std::string& s) {
    std::string out;
    bool space = false;
    for (char c : s) {
        bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\\' || c == '\r';
        if (ws) {
            space = !out.empty();
            continue;
        }
        if (space)
            out += ' ';
        space = false;
        out += c;
    }
    return out;
}

void print_text(const Rule& rule, const ScanResult& r) {
    std::printf("%-48s %-26s %-34s %8s %-10s %9s  %s\n", "LOCATION", "FUNCTION", "CALL", "VALUE",
                "RESOLVED", "SLEEPS", "NOTES");
    for (const auto& f : r.findings) {
        std::string where = f.file + ":" + std::to_string(f.line) + ":" + std::to_string(f.column);
        std::string value = f.value_ms ? std::to_string(*f.value_ms) + " ms" : "?";
        char sleeps[32] = "";
        if (f.value_ms)
            std::snprintf(sleeps, sizeof sleeps, "%.1f ms", f.predicted_sleep_ms);
        std::string notes;
        auto add = [&](const std::string& n) { notes += (notes.empty() ? "" : "; ") + n; };
        if (f.actionable && !f.inactive)
            add("ACTIONABLE");
        if (f.inactive)
            add("inactive");
        if (f.in_macro_body)
            add("in #define");
        if (!f.defined_at.empty())
            add(f.constant + " at " + f.defined_at);
        add(std::string(to_string(f.engine)));
        if (!f.note.empty())
            add(f.note);
        std::printf("%-48s %-26s %-34s %8s %-10s %9s  %s\n", where.c_str(),
                    f.function.empty() ? "-" : f.function.c_str(), one_line(f.call).c_str(),
                    value.c_str(), std::string(to_string(f.resolution)).c_str(), sleeps,
                    notes.c_str());
    }
    Summary s(r);
    std::printf("\n%zu %s call%s in %zu of %zu files:", r.findings.size(),
                rule.functions.empty() ? "" : rule.functions.front().c_str(),
                r.findings.size() == 1 ? "" : "s", s.files.size(), r.files_scanned);
    const char* sep = " ";
    for (const auto& [kind, n] : s.by_resolution) {
        std::printf("%s%zu %s", sep, n, kind.c_str());
        sep = ", ";
    }
    std::printf(".\n%zu actionable (0 < value < %lld ms), %zu inactive; HZ=%d, kernel %s.\n",
                s.actionable, rule.threshold_ms, s.inactive, r.hz, to_string(r.kernel).c_str());
    std::printf("Engines: %zu lexical, %zu semantic findings; %zu files parsed semantically "
                "(%s), %zu fell back to lexical.\n",
                s.by_engine["lexical"], s.by_engine["semantic"], r.files_semantic,
                r.build_dir.empty() ? "no build dir" : r.build_dir.c_str(), r.files_fallback);
    // Notes (files that fell back to the lexical engine, with their first error) are not
    // results: stderr.
    for (const auto& e : r.errors)
        std::fprintf(stderr, "ksweep scan: note: %s\n", e.c_str());
}

} // namespace

int scan_command(int argc, char** argv) {
    std::string rule_path = default_rule_path(), format = "text";
    int jobs = 2;
    TreeBuildOptions tree_build;
    bool lexical_only = false, fail_on_findings = false, cross = false;
    std::string engine = "clang";
    std::vector<std::string> positionals;
    ArgParser args("scan", "[options] TREE [PATH...]",
                   "Finds every call of the rule's functions (msleep) in .c and .h files under\n"
                   "the PATHs of TREE (all of it by default) and resolves the argument to\n"
                   "milliseconds through literals, macros, enums and constant expressions.");
    args.option("--rule", &rule_path, "FILE", "rule file (default: rules/msleep_small.yaml)");
    args.option("--format", &format, "text|json", "output format (JSON: docs/scan-json.md)");
    args.option("-j", &jobs, "N", "parallel jobs (default 2)");
    tree_build.add_to(args);
    args.flag("--lexical-only", &lexical_only,
              "skip the semantic engine (literals, same-file #defines)");
    args.flag("--fail-on-findings", &fail_on_findings, "exit 1 when a site is actionable");
    args.option("--engine", &engine, "clang|cocci",
                "clang engines (default), or spatch with the rule's .cocci twin");
    args.flag("--cross-check", &cross,
              "run both engines; explain every site one finds and the other does not");
    args.positionals(&positionals, 1);
    if (auto rc = args.parse(argc, argv))
        return *rc;
    if (format != "text" && format != "json") {
        std::fprintf(stderr, "ksweep scan: --format must be text or json, not '%s'\n",
                     format.c_str());
        return 2;
    }
    if (jobs < 1) {
        std::fprintf(stderr, "ksweep scan: -j must be positive\n");
        return 2;
    }

    try {
        Rule rule = load_rule(rule_path);
        ScanOptions options;
        options.tree = positionals[0];
        options.paths =
            tree_relative_paths(options.tree, {positionals.begin() + 1, positionals.end()});
        TreeBuild build = resolve_tree_build("scan", options.tree, tree_build, !lexical_only);
        options.build_dir = build.build.parse_dir();
        options.jobs = jobs;
        options.hz = build.hz.hz;
        options.semantic = !lexical_only;
        Progress progress("scanning", Progress::mode_for_stderr());
        options.progress = [&](size_t done, size_t total) { progress.update(done, total); };
        if (engine != "clang" && engine != "cocci")
            throw std::runtime_error("--engine must be clang or cocci, not '" + engine + "'");
        if (cross && engine == "cocci")
            throw std::runtime_error("--cross-check runs both engines: no --engine cocci");
        ScanResult result =
            engine == "cocci" ? cocci_scan_tree(rule, options) : scan_tree(rule, options);
        progress.finish();
        if (cross) {
            CrossCheckResult checked = cross_check_scan(rule, options, result);
            std::fputs(format == "json" ? format_cross_check_json(checked).c_str()
                                        : format_cross_check_text(checked).c_str(),
                       stdout);
            return 0;
        }

        if (format == "json")
            print_json(options.tree, rule, result, build);
        else
            print_text(rule, result);
        if (fail_on_findings)
            for (const auto& f : result.findings)
                if (f.actionable && !f.inactive)
                    return 1;
        return 0;
    } catch (const RuleError& e) {
        std::fprintf(stderr, "%s\n", e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ksweep scan: %s\n", e.what());
    }
    return 2;
}

} // namespace ksweep::cli
