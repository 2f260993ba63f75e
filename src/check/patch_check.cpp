#include "check/patch_check.h"

#include "check/advice.h"
#include "check/check_types.h"
#include "check/definitions.h"
#include "check/dependents.h"
#include "check/file_changes.h"
#include "check/location.h"
#include "check/site_diff.h"
#include "check/tree_state.h"
#include "core/file_io.h"
#include "core/shared_paths.h"
#include "core/strings.h"
#include "core/tree_path.h"
#include "kbuild/kernel_tree.h"
#include "kbuild/sleep_api.h"
#include "rewrite/iopoll_rewrite.h"
#include "rewrite/lexical_tokens.h"
#include "rewrite/loop_budget.h"
#include "rewrite/scanner.h"
#include "rewrite/sleep_eval.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>

namespace fs = std::filesystem;

namespace ksweep::check {

using namespace ksweep::kbuild;

namespace {

// More files than this naming a changed header constant are not re-checked one by one: the
// gate says so instead (a tree-wide `ksweep scan` after the patch answers it).
constexpr size_t kMaxDependents = 64;

// A patch changing more C files than this (a tree-wide cleanup) is not parsed file by file (a
// clang parse each, about a third of a second): the gate says so in a CHECK instead, so any
// patch costs bounded time.
constexpr size_t kMaxChangedFiles = 256;

bool is_c_source(const std::string& path) {
    return path.ends_with(".c") || path.ends_with(".h");
}

std::string line_of(const std::string& text, unsigned line) {
    size_t start = 0;
    for (unsigned l = 1; l < line && start != std::string::npos; ++l) {
        start = text.find('\n', start);
        start = start == std::string::npos ? start : start + 1;
    }
    if (start == std::string::npos || start > text.size())
        return "";
    return text.substr(start, text.find('\n', start) - start);
}

// The upper-case names in an argument, "FOO_DELAY, BAR": what could not be evaluated.
std::string constant_names(const std::string& argument) {
    static const std::regex name(R"(\b[A-Z_][A-Z0-9_]*\b)");
    std::string out;
    std::set<std::string> seen;
    for (std::sregex_iterator it(argument.begin(), argument.end(), name), end; it != end; ++it)
        if (seen.insert(it->str()).second)
            out += (out.empty() ? "" : ", ") + it->str();
    return out.empty() ? argument : out;
}

// One file the patch may bring a small sleep into, with both of its sides.
struct Subject {
    std::string path, old_path;
    std::optional<std::string> before; // nullopt: the file is new here (added or copied)
    std::string after;
    const FileChange* change = nullptr; // nullptr: a file the patch does not touch
    bool same_context = false;          // no directive, enum or header changed under it
};

// Everything one patch's check shares.
class PatchRun {
  public:
    PatchRun(const Rule& rule, const CheckOptions& options, int hz, std::string timers_doc,
             const Patch& patch, const PreimageReader& preimage, Overlay& overlay)
        : rule_(rule), options_(options), hz_(hz), timers_doc_(std::move(timers_doc)),
          before_(options.tree, overlay, preimage),
          changes_(apply_patch(patch, before_, options.tree)),
          after_(options.tree, with_changes(overlay, changes_), preimage),
          advisor_(rule, [this](const std::string& path) { return scanned_after(path); }) {
        record_changes(changes_, overlay);
    }

    void run(InputReport& report, const std::string& subject);

  private:
    static Overlay with_changes(Overlay overlay, const std::vector<FileChange>& changes) {
        record_changes(changes, overlay);
        return overlay;
    }

    ScanResult scan(const TreeState& state, const std::string& path, const std::string& text,
                    bool semantic) const;
    const ScannedFile* scanned_after(const std::string& path);
    void read_definitions();
    std::vector<Subject> subjects(InputReport& report);
    void check_subject(const Subject& s, InputReport& report, const std::string& patch_subject);
    void check_loop_budgets(const Subject& s, const ScanResult& after, const ScanResult& before,
                            InputReport& report, const std::string& patch_subject);
    bool new_sleep_in_counted_loop(const Subject& s, const ScanResult& after) const;
    std::optional<double> new_sleep_ms(const OtherSleep& o, int hz) const;

    Warning warning(const Subject& s, const ScanResult& after, const NewSite& site);
    void locate(const Subject& s, const Finding& f, bool on_added_line, Warning& w) const;
    std::string first_error(const ScanResult& scan) const;
    bool parsed_before(const Subject& s);
    std::string parse_failure(const Subject& s, const ScanResult& after,
                              const std::string& constants);
    std::string unresolved_why(const Subject& s, const ScanResult& after, const Finding& f);
    std::string advice_text(const std::string& path, const Advice& a) const;
    const DiffLine* added_line(const std::string& path, unsigned line) const;

    const Rule& rule_;
    const CheckOptions& options_;
    int hz_;
    std::string timers_doc_;
    TreeState before_;
    std::vector<FileChange> changes_;
    TreeState after_;
    FixAdvisor advisor_;
    std::map<std::string, ScannedFile> scanned_;
    // What the patch redefines: per file, and in headers (which reach other files).
    std::map<std::string, std::set<std::string>> changed_in_;
    std::set<std::string> changed_in_headers_;
    std::map<std::string, std::set<std::string>> defined_before_;
    std::map<std::string, bool> same_definitions_; // same directives and enums before and after
    std::map<std::string, bool> parsed_before_;    // parsed_before(), per file
    bool touches_headers_ = false;
};

ScanResult PatchRun::scan(const TreeState& state, const std::string& path, const std::string& text,
                          bool semantic) const {
    ScanOptions o;
    o.tree = state.scan_root();
    o.build_dir = options_.build_dir;
    o.semantic = semantic;
    // A C file may sleep through any macro it uses. A header is parsed on its own only for
    // the calls it spells (a macro's uses are judged where they expand).
    o.macro_uses = semantic && path.ends_with(".c");
    // The hrtimer sleeps a patch may put into a loop in place of the rule's call.
    if (semantic && path.ends_with(".c"))
        o.other_sleeps = {"usleep_range", "usleep_range_state", "fsleep"};
    o.hz = hz_;
    o.jobs = 1;
    ScanResult r = scan_buffer(rule_, o, path, text);
    for (auto* list : {&r.findings, &r.macro_uses})
        for (Finding& f : *list)
            f.defined_at = without_roots(f.defined_at, {o.tree, options_.tree});
    return r;
}

const ScannedFile* PatchRun::scanned_after(const std::string& path) {
    if (auto it = scanned_.find(path); it != scanned_.end())
        return &it->second;
    auto text = after_.read(path);
    if (!text)
        return nullptr;
    ScanResult r = scan(after_, path, *text, options_.semantic);
    return &scanned_.emplace(path, ScannedFile{std::move(*text), std::move(r)}).first->second;
}

void PatchRun::read_definitions() {
    for (const FileChange& c : changes_) {
        const std::string& path = c.path.empty() ? c.old_path : c.path;
        if (!is_c_source(path) && !is_c_source(c.old_path))
            continue;
        const bool header = path.ends_with(".h") || c.old_path.ends_with(".h");
        touches_headers_ |= header;
        const Definitions before = definitions_in(c.before.value_or(""));
        const Definitions after = definitions_in(c.after.value_or(""));
        std::set<std::string> names = changed_names(before, after);
        if (header)
            changed_in_headers_.insert(names.begin(), names.end());
        auto& known = defined_before_[path];
        for (const auto& [name, macro] : before.macros)
            known.insert(name);
        for (const auto& [name, body] : before.enumerators)
            known.insert(name);
        changed_in_[path] = std::move(names);
        same_definitions_[path] = before.context == after.context;
    }
}

std::vector<Subject> PatchRun::subjects(InputReport& report) {
    std::vector<Subject> out;
    std::set<std::string> in_patch;
    std::vector<std::string> headers;
    for (const FileChange& c : changes_) {
        in_patch.insert(c.path);
        in_patch.insert(c.old_path);
        if (c.path.ends_with(".h"))
            headers.push_back(c.path);
        if (c.old_path.ends_with(".h") && c.old_path != c.path)
            headers.push_back(c.old_path);
        if (!c.after || !is_c_source(c.path))
            continue;
        out.push_back(Subject{c.path, c.old_path, c.before, *c.after, &c,
                              c.before && !touches_headers_ && same_definitions_[c.path]});
    }
    if (out.size() > kMaxChangedFiles) {
        Warning w;
        w.level = "CHECK";
        w.type = unresolved_type(rule_);
        w.finding.file = out.front().path;
        w.input_line = out.front().change->diff->header_line;
        w.message = std::to_string(out.size()) + " C files changed by one patch: more than the " +
                    std::to_string(kMaxChangedFiles) +
                    " ksweep check parses in one patch; run ksweep scan on the tree with the "
                    "patch applied";
        report.unresolved.push_back(std::move(w));
        return {};
    }
    if (changed_in_headers_.empty())
        return out;
    Dependents deps =
        find_dependents(after_, options_.tree, headers, changed_in_headers_, rule_.functions);
    changed_in_headers_ = deps.names;
    std::vector<std::string> files;
    for (const std::string& f : deps.files)
        if (!in_patch.count(f))
            files.push_back(f);
    std::string scope;
    for (const std::string& d : deps.scope)
        scope += (scope.empty() ? "" : ", ") + (d.empty() ? std::string("the tree") : d + "/");
    std::string names;
    for (const std::string& n : changed_in_headers_)
        names += (names.empty() ? "" : ", ") + n;
    if (files.size() > kMaxDependents) {
        Warning w;
        w.level = "CHECK";
        w.type = unresolved_type(rule_);
        w.finding.file = headers.front();
        w.message = std::to_string(files.size()) + " files in " + scope +
                    " may sleep on what this patch redefines (" + names + "): more than the " +
                    std::to_string(kMaxDependents) +
                    " ksweep check re-checks; run ksweep scan on the tree with the patch applied";
        // At the header's first added line.
        for (const FileChange& c : changes_)
            if (c.path == w.finding.file && !c.post.added.empty()) {
                w.finding.line = c.post.added.begin()->first;
                w.input_line = c.post.added.begin()->second->input_line;
                w.added_line = c.post.added.begin()->second->text;
                break;
            }
        report.unresolved.push_back(std::move(w));
        return out;
    }
    if (!files.empty())
        report.notes.push_back("re-checked " + std::to_string(files.size()) + " of " +
                               std::to_string(deps.files_read) + " files in " + scope +
                               " that use what the patch redefines (" + names + ")");
    for (const std::string& f : files) {
        auto text = after_.read(f);
        if (text)
            out.push_back(Subject{f, f, before_.read(f), *text, nullptr, false});
    }
    return out;
}

const DiffLine* PatchRun::added_line(const std::string& path, unsigned line) const {
    for (const FileChange& c : changes_)
        if (c.path == path) {
            auto it = c.post.added.find(line);
            return it == c.post.added.end() ? nullptr : it->second;
        }
    return nullptr;
}

// Where the input shows a call: its added line; for an unchanged call, what the patch changed
// under it: the definition it names when the patch adds that line, else the first added line
// that names a changed name the call names, else the patch's first change to a header.
void PatchRun::locate(const Subject& s, const Finding& f, bool on_added_line, Warning& w) const {
    w.line_added = on_added_line;
    w.added_line = line_of(s.after, f.line);
    const unsigned last =
        f.line + static_cast<unsigned>(std::count(f.call.begin(), f.call.end(), '\n'));
    for (unsigned line = f.line; line <= last && on_added_line; ++line)
        if (const DiffLine* d = added_line(s.path, line)) {
            w.input_line = d->input_line;
            return;
        }
    auto [def_file, def_line] = split_location(f.defined_at);
    if (const DiffLine* d = added_line(def_file, def_line)) {
        w.input_line = d->input_line;
        return;
    }
    std::set<std::string> changed = changed_in_headers_;
    if (auto it = changed_in_.find(s.path); it != changed_in_.end())
        changed.insert(it->second.begin(), it->second.end());
    std::set<std::string> named;
    for (const std::string& n : names_in(f.call))
        if (changed.count(n))
            named.insert(n);
    const DiffLine* first_in_header = nullptr;
    for (const FileChange& c : changes_)
        for (const auto& [line, d] : c.post.added) {
            if (names_any(d->text, named)) {
                w.input_line = d->input_line;
                return;
            }
            if (!first_in_header && c.path.ends_with(".h"))
                first_in_header = d;
        }
    if (first_in_header)
        w.input_line = first_in_header->input_line;
    else if (!changes_.empty() && !changes_.front().diff->hunks.empty())
        w.input_line = changes_.front().diff->hunks.front().header_line;
}

std::string PatchRun::advice_text(const std::string& path, const Advice& a) const {
    if (a.replacement.empty())
        return "ksweep fix leaves it alone (" + a.refused + "): use " +
               (rule_.target_for(path) == Target::Fsleep ? "fsleep" : "usleep_range") +
               "() by hand";
    std::string text = "use " + a.replacement;
    if (!a.slack_define.empty())
        text += " with " + a.slack_define;
    if (a.how.starts_with("macro "))
        text += " (" + a.how + ")";
    return text;
}

// The scanner's first error without its "lexical results kept" preamble, its paths relative to
// the tree (or the shadow of it this state was parsed in): nothing of this machine's in it.
std::string PatchRun::first_error(const ScanResult& scan) const {
    std::string error = scan.errors.empty() ? "" : scan.errors.front();
    const std::string kept = "lexical results kept: ";
    if (size_t at = error.find(kept); at != std::string::npos)
        error.erase(0, at + kept.size());
    return shareable_text(without_roots(error, {after_.scan_root(), before_.scan_root()}),
                          options_.tree);
}

// Whether the file parses before the patch, the same way: when it does and the patched file
// does not, the patch is what fails to compile, not the build dir. Asked only after a failed
// parse, once per file.
bool PatchRun::parsed_before(const Subject& s) {
    if (!s.before)
        return false;
    auto [it, fresh] = parsed_before_.emplace(s.path, false);
    if (fresh)
        it->second = scan(before_, s.old_path, *s.before, true).files_fallback == 0;
    return it->second;
}

std::string PatchRun::parse_failure(const Subject& s, const ScanResult& after,
                                    const std::string& constants) {
    const std::string error = first_error(after);
    if (parsed_before(s)) {
        static const std::regex undeclared(R"(undeclared identifier '([A-Za-z_0-9]+)')");
        std::smatch m;
        for (const std::string& name : split_words(constants))
            if (std::regex_search(error, m, undeclared) && m[1] == trim(name, ", "))
                return m[1].str() + " is not defined in the tree (the headers " + s.path +
                       " includes) nor by the patch (" + error + ")";
        return "the patch does not compile: " + error;
    }
    const std::string fix =
        options_.build_dir.empty()
            ? "give --build-dir DIR, a prepared build of this tree (make O=DIR allmodconfig "
              "prepare) or the matching /usr/src/linux-headers-<version>"
            : "the build dir's flags do not parse it (" +
                  std::string(s.before ? "before the patch either" : "a new file") +
                  "): give --build-dir a prepared build of this tree, or put a "
                  "compile_commands.json in it";
    return "the semantic parse of " + s.path + " failed (" + error + "); " + fix;
}

std::string PatchRun::unresolved_why(const Subject& s, const ScanResult& after, const Finding& f) {
    if (!options_.semantic)
        return "the semantic engine is off (--lexical-only): run without it to resolve macros "
               "and enums from headers";
    if (after.files_fallback > 0)
        return parse_failure(s, after, constant_names(f.argument));
    if (f.inactive)
        return "the configuration does not compile it; give --build-dir a build whose .config "
               "enables it";
    if (f.in_macro_body)
        return "it is in a macro body the file does not expand; its uses are checked where "
               "they expand";
    return f.note;
}

Warning PatchRun::warning(const Subject& s, const ScanResult& after, const NewSite& site) {
    const Finding& f = *site.finding;
    Warning w;
    w.finding = f;
    w.via_macro = site.via_macro;
    locate(s, f, site.on_added_line, w);
    if (site.unresolved) {
        w.level = "CHECK";
        w.type = unresolved_type(rule_);
        w.message = f.call + ": " + constant_names(f.argument) +
                    " could not be evaluated: " + unresolved_why(s, after, f);
        return w;
    }
    w.type = warning_type(rule_);
    w.advice = site.via_macro ? advisor_.for_macro_use(s.path, s.after, after.findings, f)
                              : advisor_.for_call(s.path, s.after, after.findings, f);

    // Where the value comes from, and whether this patch put it there.
    auto by_patch = [&](const std::string& where, const std::string& name) -> std::string {
        auto [file, line] = split_location(where);
        if (!added_line(file, line))
            return "";
        auto known = defined_before_.find(file);
        return known != defined_before_.end() && known->second.count(name)
                   ? ", changed by this patch"
                   : ", added by this patch";
    };
    const std::string value =
        f.unit == Unit::Milliseconds ? std::to_string(*f.value) : f.value_text();
    std::string what = f.call, resolved;
    if (site.via_macro) {
        what = f.call + " expands to " + f.callee + "(" + value + ") (" + f.defined_at +
               by_patch(f.defined_at, f.constant) + ")";
    } else if (f.resolution == Resolution::Macro || f.resolution == Resolution::Enum) {
        resolved = ": " + (f.constant.empty() ? f.argument : f.constant) + " is " + value;
        if (!f.defined_at.empty())
            resolved += std::string(f.resolution == Resolution::Enum ? " (enumerator at "
                                                                     : " (#define at ") +
                        f.defined_at + by_patch(f.defined_at, f.constant) + ")";
    } else if (f.resolution == Resolution::Expression) {
        resolved = ": " + f.argument + " is " + value;
    }
    const std::string bound =
        rule_.threshold == ThresholdPolicy::Checkpatch
            ? " < " + std::to_string(rule_.threshold_ms) + "ms"
            : " overshoots by more than " + std::to_string(rule_.overshoot_percent) + "%:";
    w.message = what + bound + " can sleep for up to " + format_ms(f.predicted_sleep_ms) +
                "ms at HZ=" + std::to_string(hz_) + resolved + "; " +
                advice_text(s.path, w.advice) + "; see " +
                (timers_doc_.empty() ? "msleep()'s kernel-doc" : timers_doc_);
    return w;
}

void PatchRun::check_subject(const Subject& s, InputReport& report,
                             const std::string& patch_subject) {
    const ScannedFile* after = scanned_after(s.path);
    if (!after)
        return;
    std::set<unsigned> added;
    if (s.change)
        for (const auto& [line, d] : s.change->post.added)
            added.insert(line);
    std::set<std::string> changed = changed_in_headers_;
    if (auto it = changed_in_.find(s.path); it != changed_in_.end())
        changed.insert(it->second.begin(), it->second.end());

    // Same directives, enums and headers: the same call text is the same call, and a lexical
    // scan finds the calls before. Otherwise the values before are compared too, when they can
    // matter: only then is the file before resolved (a second semantic parse).
    std::optional<ScanResult> lexical_before, resolved_before;
    Before before;
    if (s.before) {
        lexical_before = scan(before_, s.old_path, *s.before, false);
        before = {&*lexical_before, &*s.before, !s.same_context && !options_.semantic};
        if (options_.semantic && !s.same_context &&
            values_matter(after->scan, before, s.change ? nullptr : &changed)) {
            resolved_before = scan(before_, s.old_path, *s.before, true);
            before = {&*resolved_before, &*s.before, true};
        }
    }

    // Without a parse, the calls that macros expand to were not seen: say so.
    if (after->scan.files_fallback > 0 && s.path.ends_with(".c"))
        report.notes.push_back("calls through macros not checked: " +
                               parse_failure(s, after->scan, ""));
    std::vector<NewSite> sites = new_sites(rule_, after->scan, before, added, changed);
    // A macro use whose call is itself reported here (a new #define and its uses) is that
    // warning already.
    std::set<std::string> reported;
    for (const NewSite& n : sites)
        if (!n.via_macro && !n.unresolved)
            reported.insert(s.path + ":" + std::to_string(n.finding->line));
    for (const NewSite& n : sites) {
        if (n.via_macro && reported.count(n.finding->defined_at))
            continue;
        Warning w = warning(s, after->scan, n);
        w.patch_subject = patch_subject;
        (n.unresolved ? report.unresolved : report.warnings).push_back(std::move(w));
    }

    // A rule call gone from a count-ended loop where a new hrtimer sleep now is: the loops of
    // the file before, from a parse of it (made once, and only when an added line sleeps in a
    // count-ended loop).
    if (s.before && options_.semantic && lexical_before && !lexical_before->findings.empty() &&
        new_sleep_in_counted_loop(s, after->scan)) {
        if (!resolved_before)
            resolved_before = scan(before_, s.old_path, *s.before, true);
        check_loop_budgets(s, after->scan, *resolved_before, report, patch_subject);
    }
}

// An hrtimer sleep the patch adds (on an added line of `s`) in a loop that gives up after a
// count.
bool added_in_counted_loop(const Subject& s, const LineTable& lines, const OtherSleep& o) {
    return s.change && o.loop.count_ended() && o.loop.tries &&
           s.change->post.added.count(lines.line(o.call_begin));
}

bool PatchRun::new_sleep_in_counted_loop(const Subject& s, const ScanResult& after) const {
    const LineTable lines(s.after);
    return std::any_of(after.other_sleeps.begin(), after.other_sleeps.end(),
                       [&](const OtherSleep& o) { return added_in_counted_loop(s, lines, o); });
}

// The longest a new sleep lasts at `hz`: usleep_range()'s maximum, fsleep() as the tree runs it.
std::optional<double> PatchRun::new_sleep_ms(const OtherSleep& o, int hz) const {
    if ((o.callee == "usleep_range" || o.callee == "usleep_range_state") && o.args.size() >= 2 &&
        o.args[1])
        return static_cast<double>(*o.args[1]) / 1000.0;
    if (o.callee == "fsleep" && !o.args.empty() && o.args[0]) {
        TreeSleeps& sleeps = tree_sleeps(options_.tree, options_.build_dir);
        const SleepEval e = sleeps.fsleep(*o.args[0], hz);
        return e.step ? e.step->max_ms(hz, sleeps.extra_jiffy()) : std::nullopt;
    }
    return std::nullopt;
}

// A rule call in a count-ended loop that the patch replaced by a shorter hrtimer sleep in the
// same loop (same function, same counter): the loop's budget, the driver's timeout, shrinks.
void PatchRun::check_loop_budgets(const Subject& s, const ScanResult& after,
                                  const ScanResult& before, InputReport& report,
                                  const std::string& patch_subject) {
    const LineTable lines(s.after);
    for (const OtherSleep& o : after.other_sleeps) {
        if (!added_in_counted_loop(s, lines, o))
            continue;
        for (const Finding& was : before.findings) {
            if (was.function != o.function || !was.loop.count_ended() ||
                was.loop.counter != o.loop.counter || was.loop.budget_ms_by_hz.empty())
                continue;
            const bool still_there =
                std::any_of(after.findings.begin(), after.findings.end(), [&](const Finding& f) {
                    return f.function == was.function && f.call == was.call;
                });
            if (still_there)
                continue;
            ByHz budget;
            for (int hz : budget_hz())
                if (auto ms = new_sleep_ms(o, hz))
                    budget.emplace_back(hz, static_cast<double>(*o.loop.tries) * *ms);
            const auto old_ms = at_hz(was.loop.budget_ms_by_hz, hz_);
            const auto new_ms = at_hz(budget, hz_);
            if (budget.size() != budget_hz().size() || !old_ms || !new_ms || *new_ms >= *old_ms)
                continue;
            Warning w;
            w.type = loop_budget_type(rule_);
            w.finding.file = s.path;
            w.finding.line = lines.line(o.call_begin);
            w.finding.column = lines.column(o.call_begin);
            w.finding.function = o.function;
            w.finding.rule = rule_.name;
            w.finding.callee = o.callee;
            w.finding.loop = o.loop; // with the budget the new sleep gives it
            w.finding.loop.budget_ms_by_hz = budget;
            const size_t end = s.after.find(';', o.call_begin);
            w.finding.call =
                s.after.substr(o.call_begin, end == std::string::npos ? 0 : end - o.call_begin);
            locate(s, w.finding, true, w);
            std::string advice =
                "keep the loop's budget (more tries, or a loop that ends by a time)";
            if (s.before) {
                IopollPlan poll = plan_iopoll(rule_, was, *s.before, hz_, nullptr);
                if (poll.rewrite)
                    advice = "ksweep fix writes " + poll.rewrite->call +
                             " for this loop, which keeps it";
            }
            w.message = was.call + " became " + w.finding.call + " in " + o.function + "()'s " +
                        o.loop.statement + " loop, which gives up after " +
                        std::to_string(*o.loop.tries) + " tries: its budget falls from " +
                        budget_change(was.loop.budget_ms_by_hz, budget, hz_) + "; " + advice;
            w.patch_subject = patch_subject;
            report.warnings.push_back(std::move(w));
            break;
        }
    }
}

void PatchRun::run(InputReport& report, const std::string& subject) {
    read_definitions();
    for (const Subject& s : subjects(report))
        check_subject(s, report, subject);
}

} // namespace

PreimageReader tree_reader(const std::string& tree) {
    // The path comes from a patch: through core's checks, so no link of the tree leads out.
    return [tree](const std::string& path) { return read_file(path_in_tree(tree, path)); };
}

PatchChecker::PatchChecker(const Rule& rule, CheckOptions options)
    : rule_(rule), options_(std::move(options)) {
    if (options_.tree.empty() || !fs::is_directory(options_.tree))
        throw CheckError("no such tree: '" + options_.tree + "'");
    kernel_ = read_kernel_version(options_.tree).value_or(KernelVersion{});
    timers_doc_ = kbuild::read_sleep_api(options_.tree).timers_doc;
    if (options_.build_dir.empty())
        options_.build_dir = find_build_dir(options_.tree, kernel_);
    if (options_.hz > 0)
        hz_ = options_.hz;
    else if (auto hz = read_config_hz(options_.build_dir))
        hz_ = *hz;
}

InputReport PatchChecker::check(const CheckInput& input, Overlay& overlay) const {
    InputReport report{input.filename, input.vname, {}, 0, 0, {}, {}};
    std::vector<Patch> patches;
    try {
        patches = read_patches(input.text);
        if (std::string note = put_in_series_order(patches); !note.empty())
            report.notes.push_back(input.filename + ": " + note);
    } catch (const DiffError& e) {
        throw CheckError(input.filename + ": " + e.what());
    }
    const bool thread = patches.size() > 1;
    bool cover_letter = false;
    for (const auto& patch : patches) {
        if (!patch.files.empty() && !patch.reply) {
            try {
                check_patch(patch, input.preimage, overlay, report);
            } catch (const TreePathError& e) {
                throw CheckError(input.filename + ": " + e.what());
            }
            report.lines_checked += patch.lines_checked;
            ++report.patches;
            continue;
        }
        const std::string message =
            thread ? " message " + std::to_string(patch.message) + " (\"" + patch.subject + "\")"
                   : "";
        switch (input.filename.ends_with("0000-cover-letter.patch") ? NoDiff::cover_letter
                                                                    : why_no_diff(patch, thread)) {
        case NoDiff::cover_letter: {
            cover_letter = true;
            const std::string tag =
                is_cover_letter_subject(patch.subject)
                    ? " (" + patch.subject.substr(0, patch.subject.find(']') + 1) + ")"
                    : "";
            report.notes.push_back(input.filename + ":" +
                                   (thread ? message + ", a cover letter" : " cover letter" + tag) +
                                   ", no diff: skipped");
            break;
        }
        case NoDiff::reply:
            report.notes.push_back(input.filename + ":" + message +
                                   (patch.files.empty() ? ", a reply, no diff: skipped"
                                                        : ", a reply: skipped, its diff not "
                                                          "checked (b4 am applies no reply)"));
            break;
        case NoDiff::not_a_patch:
            report.notes.push_back(input.filename + ":" + message +
                                   ", no [PATCH] tag and no diff: skipped");
            break;
        case NoDiff::missing:
            throw CheckError(input.filename + ":" + (thread ? message + ":" : "") + " line " +
                             std::to_string(patch.first_line) +
                             (thread ? ": its subject says it is a patch, but it holds no diff "
                                       "git am could read"
                                     : ": no unified diff found in this patch"));
        }
    }
    if (report.patches == 0 && !cover_letter)
        throw CheckError(input.filename + ": no patch in " + std::to_string(patches.size()) +
                         " messages: none holds a diff");
    return report;
}

void PatchChecker::check_patch(const Patch& patch, const PreimageReader& preimage, Overlay& overlay,
                               InputReport& report) const {
    PatchRun(rule_, options_, hz_, timers_doc_, patch, preimage, overlay)
        .run(report, patch.subject);
}

std::vector<InputReport> merge_reports(std::vector<std::vector<InputReport>> per_rule) {
    if (per_rule.empty())
        return {};
    std::vector<InputReport> merged = std::move(per_rule.front());
    for (size_t r = 1; r < per_rule.size(); ++r)
        for (size_t i = 0; i < merged.size() && i < per_rule[r].size(); ++i) {
            InputReport& into = merged[i];
            InputReport& from = per_rule[r][i];
            into.warnings.insert(into.warnings.end(), from.warnings.begin(), from.warnings.end());
            into.unresolved.insert(into.unresolved.end(), from.unresolved.begin(),
                                   from.unresolved.end());
            for (std::string& note : from.notes)
                if (std::find(into.notes.begin(), into.notes.end(), note) == into.notes.end())
                    into.notes.push_back(std::move(note));
        }
    return merged;
}

} // namespace ksweep::check
