#include "rewrite/fix_verify.h"

#include "core/file_io.h"
#include "rewrite/compile_flags.h"
#include "rewrite/semantic_engine.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

size_t actionable_sites(const Rule& rule, const std::vector<Finding>& findings,
                        const std::string& file) {
    size_t n = 0;
    for (const Finding& f : findings)
        n += f.file == file && rule.is_rule_function(f.callee) && f.actionable && !f.inactive;
    return n;
}

// A full parse of `content` as the file at `rel_path` (no function body skipped).
SemanticScan parse(const Rule& rule, const CompileFlags& flags, const std::string& tree,
                   const std::string& rel_path, const std::string& content,
                   const ScanResult& scan) {
    SemanticRequest request;
    request.preamble_dir = scan.preamble_dir; // as the scan kept them
    request.result_dir = scan.parse_dir;
    request.tree = tree;
    request.abs_path = tree + "/" + rel_path;
    request.content = &content;
    request.args = flags.for_file(rel_path);
    look_for(request, rule);
    return semantic_scan(request);
}

} // namespace

std::optional<std::string> verify_fix(const Rule& rule, const ScanOptions& options,
                                      const ScanResult& scan, const FileFix& fix,
                                      bool fixed_point) {
    const ScanResult rescan = scan_buffer(rule, options, fix.file, fix.fixed);

    // Every fixed site is gone; sites left alone may remain.
    size_t fixed_active = 0;
    for (const SiteOutcome& s : fix.sites)
        fixed_active += s.finding.actionable && !s.finding.inactive;
    const size_t before = actionable_sites(rule, scan.findings, fix.file);
    const size_t after = actionable_sites(rule, rescan.findings, fix.file);
    if (after + fixed_active > before)
        return std::to_string(after + fixed_active - before) +
               " fixed site(s) still found by a re-scan";

    // Fixing the fixed text again must change nothing.
    std::vector<SiteOutcome> ignored;
    const FileFix again = fix_file_text(
        rule, fix.file, fix.fixed, rescan.findings, ignored,
        [&](const std::string& rel) { return read_file(fs::path(options.tree) / rel); });
    if (fixed_point && again.fixed != fix.fixed)
        return "a second fix would change the file again";

    if (options.semantic) {
        const std::string tree = fs::absolute(options.tree).lexically_normal().string();
        const CompileFlags flags(tree, scan.build_dir);
        const SemanticScan after_parse = parse(rule, flags, tree, fix.file, fix.fixed, scan);
        if (!after_parse.parsed) {
            const SemanticScan before_parse =
                parse(rule, flags, tree, fix.file, fix.original, scan);
            if (before_parse.parsed)
                return "the fixed file no longer parses: " + after_parse.error;
        }
    }
    return std::nullopt;
}

} // namespace ksweep
