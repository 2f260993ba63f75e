// scan_tree / scan_buffer: walks the tree, runs the lexical engine on every file and the
// semantic engine on every file with a call (the loop around each call is read from the AST;
// the values of the lexical engine stand unless it left a site it could not settle), on -j
// threads.
#include "rewrite/scanner.h"

#include "core/file_io.h"
#include "core/parallel.h"
#include "core/shared_paths.h"
#include "kbuild/kernel_tree.h"
#include "kbuild/sleep_api.h"
#include "rewrite/compile_flags.h"
#include "rewrite/lexical_scanner.h"
#include "rewrite/lexical_tokens.h"
#include "rewrite/parse_cache.h"
#include "rewrite/preamble_cache.h"
#include "rewrite/semantic_engine.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep {

using namespace ksweep::kbuild;

namespace {

// Whether the tree's msleep() adds the historical extra jiffy: its own body says, else its
// version. Read once per tree and process (fix re-scans each fixed file).
bool tree_extra_jiffy(const std::string& tree, KernelVersion kernel) {
    static std::mutex mutex;
    static std::map<std::string, std::optional<bool>> known;
    std::lock_guard lock(mutex);
    auto it = known.find(tree);
    if (it == known.end())
        it = known.emplace(tree, read_sleep_api(tree).msleep_extra_jiffy).first;
    return it->second.value_or(msleep_extra_jiffy(kernel));
}

// Scans of more files than this keep no preambles (see scan_tree).
constexpr size_t kPreambleFilesAtMost = 2000;

// What every file of one scan shares.
struct ScanContext {
    std::vector<const Rule*> rules; // each file is read, lexed and parsed once for all of them
    std::string tree;               // absolute, no trailing '/'
    std::string build_dir;
    int hz = 250;
    KernelVersion kernel;
    bool extra_jiffy = true; // msleep() adds the historical extra jiffy
    bool semantic = true;
    bool macro_uses = false;
    std::vector<std::string> other_sleeps;
    std::string preamble_dir;
    std::string parse_dir;
    std::shared_ptr<const CompileFlags> flags; // shared by the worker threads, read-only

    static ScanContext make(std::vector<const Rule*> rules, const ScanOptions& options) {
        ScanContext c;
        c.rules = std::move(rules);
        c.tree = fs::absolute(options.tree).lexically_normal().string();
        if (c.tree.size() > 1 && c.tree.back() == '/')
            c.tree.pop_back();
        c.kernel = read_kernel_version(c.tree).value_or(KernelVersion{});
        c.extra_jiffy = tree_extra_jiffy(c.tree, c.kernel);
        c.build_dir =
            options.build_dir.empty() ? find_build_dir(c.tree, c.kernel) : options.build_dir;
        if (options.hz > 0)
            c.hz = options.hz;
        else if (auto hz = c.build_dir.empty() ? std::nullopt : read_config_hz(c.build_dir))
            c.hz = *hz;
        c.semantic = options.semantic;
        c.macro_uses = options.macro_uses;
        c.other_sleeps = options.other_sleeps;
        c.preamble_dir = options.preambles ? preamble_cache_dir() : std::string();
        c.parse_dir = options.cache_parses ? parse_cache_dir() : std::string();
        if (c.semantic)
            c.flags = std::make_shared<const CompileFlags>(c.tree, c.build_dir);
        return c;
    }

    ScanResult empty_result() const {
        ScanResult r;
        r.hz = hz;
        r.kernel = kernel;
        r.extra_jiffy = extra_jiffy;
        r.build_dir = semantic ? build_dir : std::string();
        r.preamble_dir = semantic ? preamble_dir : std::string();
        r.parse_dir = semantic ? parse_dir : std::string();
        return r;
    }
};

struct FileOutcome {
    std::vector<Finding> findings;
    std::vector<Finding> macro_uses;
    std::vector<OtherSleep> other_sleeps;
    std::string error;
    bool semantic_parsed = false;
    bool semantic_failed = false;
};

// One parse for every rule: their call forms together, and the lexical knowledge of all.
SemanticRequest semantic_request(const ScanContext& c, const std::string& rel_path,
                                 const std::string& content,
                                 const std::vector<LexicalScan>& lexical) {
    SemanticRequest r;
    r.abs_path = c.tree + "/" + rel_path;
    r.tree = c.tree;
    r.content = &content;
    r.args = c.flags->for_file(rel_path);
    r.preamble_dir = c.preamble_dir;
    r.result_dir = c.parse_dir;
    for (const Rule* rule : c.rules)
        look_for(r, *rule);
    // Every function body is parsed for the other sleeps (those without a rule's call too).
    r.expansions = c.macro_uses || !c.other_sleeps.empty();
    r.other_sleeps = c.other_sleeps;
    for (const LexicalScan& scan : lexical) {
        if (r.blocks.empty())
            r.blocks = scan.top_level_blocks; // the same for every rule that lexed the file
        for (const auto& site : scan.sites) {
            r.call_offsets.push_back(site.finding.call_begin);
            if (!site.single_name.empty())
                r.single_names.emplace_back(site.finding.call_begin, site.single_name);
        }
    }
    return r;
}

// The semantic engine saw the file as compiled: its values win, and a site it did not see
// (outside a #define) is in a branch the configuration does not take.
void merge(LexicalSite& site, const SemanticScan& semantic) {
    Finding& f = site.finding;
    auto seen =
        std::find_if(semantic.sites.begin(), semantic.sites.end(), [&](const SemanticSite& s) {
            return s.call_begin == f.call_begin && s.through == f.through;
        });
    if (seen == semantic.sites.end()) {
        if (!f.in_macro_body && !f.inactive) {
            f.inactive = true;
            f.note = "not compiled in this configuration";
        } else if (f.in_macro_body && site.needs_semantic) {
            f.note = "macro not expanded in this file: " + f.note;
        }
        return;
    }
    const bool was_non_constant = !f.value && !site.needs_semantic;
    f.engine = Engine::Semantic;
    f.inactive = false;
    f.value = seen->conflicting ? std::nullopt : seen->value;
    if (seen->name_kind != SemanticSite::Name::None) {
        f.constant = site.single_name;
        f.defined_at = seen->defined_at;
    } else if (f.resolution != Resolution::Literal) {
        f.constant.clear();
        f.defined_at.clear();
    }
    if (f.function.empty() && !f.in_macro_body)
        f.function = seen->function;
    if (!f.value)
        f.resolution = Resolution::Unresolved;
    else if (f.resolution == Resolution::Literal)
        ; // a literal stays one
    else if (seen->name_kind == SemanticSite::Name::Macro)
        f.resolution = Resolution::Macro;
    else if (seen->name_kind == SemanticSite::Name::Enum)
        f.resolution = Resolution::Enum;
    else
        f.resolution = Resolution::Expression;
    if (f.value)
        f.note.clear();
    else if (seen->conflicting)
        f.note = "folds to different values in different expansions";
    else if (!was_non_constant)
        f.note = "not a constant expression";
}

// Where a macro use that starts at `begin` ends: [begin, name_end) is the macro's name,
// [begin, end) the whole use with a function-like macro's arguments [arg_begin, arg_end).
struct UseText {
    unsigned name_end = 0, end = 0, arg_begin = 0, arg_end = 0;
};
UseText use_text(const std::string& content, unsigned begin) {
    const std::string window = content.substr(begin, 4096); // a use's arguments fit in it
    const std::vector<RawToken> tokens = lex_raw(window);
    UseText use;
    if (tokens.empty())
        return {begin, begin, begin, begin};
    use.name_end = use.end = use.arg_begin = use.arg_end = begin + tokens[0].end();
    if (tokens.size() < 2 || !tokens[1].is(clang::tok::l_paren))
        return use;
    int depth = 0;
    for (size_t i = 1; i < tokens.size(); ++i) {
        depth += tokens[i].is(clang::tok::l_paren) - tokens[i].is(clang::tok::r_paren);
        if (depth == 0) {
            use.end = begin + tokens[i].end();
            use.arg_begin = begin + tokens[1].end();
            use.arg_end = begin + tokens[i].offset;
            break;
        }
    }
    return use;
}

// One finding per expansion of one of the rule's calls, at the use of the macro in this file.
std::vector<Finding> macro_use_findings(const Rule& rule, const std::string& rel_path,
                                        const std::string& content,
                                        const std::vector<SemanticExpansion>& expansions) {
    std::vector<Finding> out;
    if (expansions.empty())
        return out;
    const LineTable lines(content);
    for (const SemanticExpansion& e : expansions) {
        const CallForm* form = rule.form_for(e.callee, e.through);
        if (!form)
            continue; // another rule's call
        const UseText use = use_text(content, e.use_begin);
        Finding f;
        f.file = rel_path;
        f.line = lines.line(e.use_begin);
        f.column = lines.column(e.use_begin);
        f.function = e.function;
        f.rule = rule.name;
        f.callee = e.callee;
        f.through = e.through;
        f.unit = form->unit;
        f.call = content.substr(e.use_begin, use.end - e.use_begin);
        f.argument = content.substr(use.arg_begin, use.arg_end - use.arg_begin);
        f.value = e.value;
        f.resolution = e.value ? Resolution::Expression : Resolution::Unresolved;
        f.constant = content.substr(e.use_begin, use.name_end - e.use_begin);
        f.defined_at = e.spelled_at;
        f.engine = Engine::Semantic;
        f.call_begin = e.use_begin;
        f.call_end = use.end;
        f.arg_begin = use.arg_begin;
        f.arg_end = use.arg_end;
        f.note = "expands to " + e.callee + "() at " + e.spelled_at;
        out.push_back(std::move(f));
    }
    return out;
}

// The loop around each call, from the semantic engine's site of that call and form; without
// one, why not.
void attach_loops(LexicalScan& lexical, const SemanticScan& semantic) {
    for (auto& site : lexical.sites) {
        Finding& f = site.finding;
        auto seen =
            std::find_if(semantic.sites.begin(), semantic.sites.end(), [&](const SemanticSite& s) {
                return s.call_begin == f.call_begin && s.through == f.through;
            });
        if (seen != semantic.sites.end()) {
            f.loop = seen->loop;
        } else {
            f.loop = LoopInfo{};
            f.loop.note = f.in_macro_body ? "a #define that this file does not expand"
                                          : "not compiled in this configuration";
        }
    }
}

void loops_unknown(LexicalScan& lexical, const std::string& why) {
    for (auto& site : lexical.sites) {
        site.finding.loop = LoopInfo{};
        site.finding.loop.note = why;
    }
}

// Every rule on one file: read once, lexed once per rule, parsed at most once for all.
FileOutcome scan_file(const ScanContext& c, const std::string& rel_path,
                      const std::string& content) {
    FileOutcome out;
    std::vector<LexicalScan> lexical;
    bool needs_semantic = false;
    bool calls = false;
    for (const Rule* rule : c.rules) {
        lexical.push_back(lexical_scan(*rule, rel_path, content));
        needs_semantic |= lexical.back().needs_semantic();
        calls |= !lexical.back().sites.empty();
    }
    if (!c.semantic)
        for (LexicalScan& scan : lexical)
            loops_unknown(scan, "not analysed: the semantic engine is off (--lexical-only)");
    // Every call's loop comes from the AST: a file with calls is parsed for them.
    if (c.semantic && (needs_semantic || c.macro_uses || calls || !c.other_sleeps.empty())) {
        SemanticScan semantic = semantic_scan(semantic_request(c, rel_path, content, lexical));
        if (semantic.parsed) {
            out.semantic_parsed = true;
            for (size_t i = 0; i < c.rules.size(); ++i) {
                // A parse made only for the macro uses, the loops or another rule leaves the
                // calls as a scan without it resolves them: the same file gives the same
                // findings.
                if (lexical[i].needs_semantic())
                    for (auto& site : lexical[i].sites)
                        merge(site, semantic);
                attach_loops(lexical[i], semantic);
                if (!c.macro_uses)
                    continue; // expansions asked for the other sleeps' sake only
                for (Finding& f :
                     macro_use_findings(*c.rules[i], rel_path, content, semantic.expansions)) {
                    judge_finding(f, *c.rules[i], c.hz, c.extra_jiffy);
                    out.macro_uses.push_back(std::move(f));
                }
            }
            out.other_sleeps = std::move(semantic.other_sleeps);
            for (OtherSleep& o : out.other_sleeps)
                o.file = rel_path;
        } else {
            out.semantic_failed = true;
            // Notes reach mails and reports: the tree's paths in them relative to it.
            const std::string error = shareable_text(semantic.error, c.tree);
            out.error = rel_path + ": semantic parse failed, lexical results kept: " + error;
            for (LexicalScan& scan : lexical) {
                for (auto& site : scan.sites)
                    if (site.needs_semantic)
                        site.finding.note =
                            "semantic parse failed (" + error + "); " + site.finding.note;
                loops_unknown(scan, "not analysed: the semantic parse failed (" + error + ")");
            }
        }
    }
    for (size_t i = 0; i < c.rules.size(); ++i)
        for (auto& site : lexical[i].sites) {
            // Only the semantic engine could have folded it, and it did not.
            site.finding.unevaluated = site.needs_semantic && !site.finding.value &&
                                       site.finding.engine == Engine::Lexical;
            judge_finding(site.finding, *c.rules[i], c.hz, c.extra_jiffy);
            out.findings.push_back(std::move(site.finding));
        }
    // In file order, each place's findings in the order of the rules.
    auto by_place = [](const Finding& a, const Finding& b) { return a.call_begin < b.call_begin; };
    std::stable_sort(out.findings.begin(), out.findings.end(), by_place);
    std::stable_sort(out.macro_uses.begin(), out.macro_uses.end(), by_place);
    return out;
}

bool is_source(const fs::path& p) {
    auto ext = p.extension();
    return ext == ".c" || ext == ".h";
}

std::string relative_to(const fs::path& tree, const fs::path& p) {
    return p.lexically_relative(tree).generic_string();
}

// Tree-relative .c/.h files under the paths (the whole tree when none), sorted, unique.
std::vector<std::string> files_to_scan(const fs::path& tree,
                                       const std::vector<std::string>& paths) {
    std::vector<std::string> files;
    std::vector<std::string> roots = paths.empty() ? std::vector<std::string>{"."} : paths;
    for (const auto& root : roots) {
        fs::path start = (tree / root).lexically_normal();
        std::error_code ec;
        if (fs::is_regular_file(start, ec)) {
            files.push_back(relative_to(tree, start));
            continue;
        }
        if (!fs::is_directory(start, ec))
            throw std::runtime_error(root + ": no such file or directory in " + tree.string());
        fs::recursive_directory_iterator it(start, fs::directory_options::skip_permission_denied,
                                            ec),
            end;
        for (; it != end; it.increment(ec)) {
            if (ec)
                break;
            const auto& name = it->path().filename().string();
            if (!name.empty() && name[0] == '.') { // .git, .tmp_versions, ...
                if (it->is_directory(ec))
                    it.disable_recursion_pending();
                continue;
            }
            if (is_source(it->path()) && it->is_regular_file(ec))
                files.push_back(relative_to(tree, it->path()));
        }
    }
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    return files;
}

void add_outcome(ScanResult& result, FileOutcome&& outcome) {
    ++result.files_scanned;
    result.files_semantic += outcome.semantic_parsed;
    result.files_fallback += outcome.semantic_failed;
    if (!outcome.error.empty())
        result.errors.push_back(std::move(outcome.error));
    for (auto& f : outcome.findings)
        result.findings.push_back(std::move(f));
    for (auto& f : outcome.macro_uses)
        result.macro_uses.push_back(std::move(f));
    for (auto& o : outcome.other_sleeps)
        result.other_sleeps.push_back(std::move(o));
}

} // namespace

void judge_finding(Finding& f, const Rule& rule, int hz, bool extra_jiffy) {
    const CallForm* form = rule.form_for(f.callee, f.through);
    f.predicted_by_hz.clear();
    f.predicted_sleep_ms = 0;
    if (form && f.value && *f.value >= 0) {
        f.predicted_sleep_ms = predicted_sleep_ms(*form, *f.value, hz, extra_jiffy);
        for (int at : {100, 250, 1000})
            f.predicted_by_hz.emplace_back(at,
                                           predicted_sleep_ms(*form, *f.value, at, extra_jiffy));
    }
    f.actionable = rule.actionable(f.requested_ms(), f.predicted_sleep_ms);
    // The loop's budget today: each try sleeps as long as the model says, at most.
    f.loop.budget_ms_by_hz.clear();
    if (f.loop.count_ended() && f.loop.tries)
        for (const auto& [at, ms] : f.predicted_by_hz)
            f.loop.budget_ms_by_hz.emplace_back(at, static_cast<double>(*f.loop.tries) * ms);
}

ScanResult scan_tree(const std::vector<Rule>& rules, const ScanOptions& options) {
    if (rules.empty())
        throw std::runtime_error("no rule to scan with");
    fs::path tree = fs::path(options.tree).lexically_normal();
    std::error_code ec;
    if (!fs::is_directory(tree, ec))
        throw std::runtime_error(options.tree + ": no such directory");
    if (!read_kernel_version(tree.string()))
        throw std::runtime_error(options.tree +
                                 ": not a kernel tree (no VERSION/PATCHLEVEL in its Makefile)");
    std::vector<const Rule*> all;
    for (const Rule& rule : rules)
        all.push_back(&rule);
    ScanContext context = ScanContext::make(std::move(all), options);
    std::vector<std::string> files = files_to_scan(tree, options.paths);
    // A preamble pays when its file is parsed again (check, fix, scan of a driver); a run over
    // a large part of the tree parses each file once, and would fill the cache with them.
    if (files.size() > kPreambleFilesAtMost)
        context.preamble_dir.clear();

    std::vector<FileOutcome> outcomes(files.size());
    std::mutex progress_mutex;
    size_t done = 0;
    parallel_for(files.size(), options.jobs, [&](size_t i) {
        auto content = read_file(tree / files[i]);
        if (!content)
            outcomes[i].error = files[i] + ": cannot read";
        else
            outcomes[i] = scan_file(context, files[i], *content);
        if (options.progress) {
            std::lock_guard lock(progress_mutex);
            options.progress(++done, files.size());
        }
    });

    ScanResult result = context.empty_result();
    for (auto& o : outcomes)
        add_outcome(result, std::move(o));
    return result;
}

ScanResult scan_tree(const Rule& rule, const ScanOptions& options) {
    return scan_tree(std::vector<Rule>{rule}, options);
}

ScanResult scan_buffer(const Rule& rule, const ScanOptions& options, const std::string& rel_path,
                       const std::string& content) {
    ScanContext context = ScanContext::make({&rule}, options);
    ScanResult result = context.empty_result();
    add_outcome(result, scan_file(context, fs::path(rel_path).lexically_normal().generic_string(),
                                  content));
    return result;
}

} // namespace ksweep
