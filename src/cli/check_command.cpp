// ksweep check: the CI gate. The small msleep() calls a patch brings in, printed the way
// checkpatch.pl prints its warnings (or as JSON / SARIF). Exit 0 clean, 1 warnings or calls it
// could not evaluate (a gate never says clean about what it could not check), 2 input that is
// not a patch or does not apply.
#include "check/base_state.h"
#include "check/git_range.h"
#include "check/patch_check.h"
#include "check/report_format.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/rule_options.h"
#include "cli/tree_build.h"
#include "cli/tree_paths.h"
#include "core/file_io.h"
#include "core/rule.h"
#include "core/shared_paths.h"
#include "kbuild/kernel_tree.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace ksweep::cli {

namespace {

// A directory (as `ksweep series` writes one) is its *.patch files in name order: the cover
// letter, then the series.
std::vector<std::string> expand_directories(const std::vector<std::string>& inputs) {
    std::vector<std::string> out;
    for (const auto& name : inputs) {
        std::error_code ec;
        if (name == "-" || !std::filesystem::is_directory(name, ec)) {
            out.push_back(name);
            continue;
        }
        std::vector<std::string> patches;
        for (const auto& e : std::filesystem::directory_iterator(name, ec))
            if (e.path().extension() == ".patch" && e.is_regular_file(ec))
                patches.push_back(e.path().string());
        std::sort(patches.begin(), patches.end());
        if (patches.empty())
            out.push_back(name); // reported as unreadable, not skipped
        out.insert(out.end(), patches.begin(), patches.end());
    }
    return out;
}

// At most check::kMaxInputBytes of a file or stdin: a larger input is refused unread.
std::optional<std::string> read_input(const std::string& name) {
    if (name != "-")
        return read_file_at_most(name, check::kMaxInputBytes);
    return read_at_most(std::cin, check::kMaxInputBytes);
}

// checkpatch.pl names stdin after the patch's (last) Subject: header, else "Your patch".
std::string stdin_name(const std::string& text) {
    std::string name = "Your patch";
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.starts_with("Subject:") && line.size() > 9)
            name = "\"" + line.substr(line.find_first_not_of(" \t", 8)) + "\"";
    return name;
}

// The first positional is TREE when it is a directory that is not a series folder: a kernel
// tree, or a directory without *.patch files (a stand-in tree).
bool is_tree_argument(const std::string& name) {
    std::error_code ec;
    if (name == "-" || !std::filesystem::is_directory(name, ec))
        return false;
    if (kbuild::read_kernel_version(name))
        return true;
    for (const auto& e : std::filesystem::directory_iterator(name, ec))
        if (e.path().extension() == ".patch")
            return false;
    return true;
}

// Every patch of the inputs as the check applies them: each input in [PATCH n/m] order,
// replies left out (a reviewer's diff is not the series); none when one does not parse (the
// check says why).
std::vector<check::Patch> all_patches(const std::vector<std::string>& names,
                                      const std::map<std::string, std::string>& texts) {
    std::vector<check::Patch> all;
    try {
        for (const auto& name : names) {
            std::vector<check::Patch> patches = check::read_patches(texts.at(name));
            check::put_in_series_order(patches);
            for (auto& patch : patches)
                if (!patch.reply)
                    all.push_back(std::move(patch));
        }
    } catch (const check::DiffError&) {
        return {};
    }
    return all;
}

} // namespace

int check_command(int argc, char** argv) {
    std::string tree, format = "text", git_range;
    RuleOptions rule_options;
    TreeBuildOptions tree_build;
    bool lexical_only = false;
    check::TextStyle style;
    bool no_summary = false;
    std::vector<std::string> inputs;
    ArgParser args("check", "[options] [TREE] [PATCH|MBOX|DIR|-]... | [TREE] --git RANGE",
                   "Reports the short sleeps a patch brings in (msleep() below 20 ms and the\n"
                   "other rules' calls): added calls, and calls\n"
                   "made small by what it redefines (in the file or a header), resolving macros\n"
                   "and enums in the tree together with what the patch itself defines. A DIR is\n"
                   "its *.patch files in order (a series; the cover letter is skipped). Output as\n"
                   "checkpatch.pl writes it (b4 prep-perpatch-check-cmd: 'ksweep check --terse\n"
                   "--no-summary --mailback --showfile -'), JSON or SARIF. A call whose constant\n"
                   "could not be evaluated is a CHECK:MSLEEP_UNRESOLVED saying why.\n"
                   "TREE (default: .) may be the patches' base or already hold them (a branch\n"
                   "at its tip): then they are checked against their pre-image from git.\n"
                   "Exit status: 0 clean, 1 warnings or unresolved checks, 2 bad input (does\n"
                   "not parse or apply).");
    args.option("--tree", &tree, "TREE", "the tree, as the first argument gives it (default: .)");
    args.option("--git", &git_range, "RANGE",
                "check the commits of RANGE (A..B, or one commit) of the git tree");
    rule_options.add_to(args);
    args.option("--format", &format, "text|json|sarif", "output format (default: text)");
    tree_build.add_to(args);
    args.flag("--lexical-only", &lexical_only,
              "skip the semantic engine (literals and same-file #defines only)");
    args.flag("--terse", &style.terse, "one line per warning, as checkpatch.pl --terse");
    args.flag("--showfile", &style.showfile, "locate warnings by file:line, not patch line");
    args.flag("--show-types", &style.show_types, "print WARNING:MSLEEP: as checkpatch.pl does");
    args.flag("--no-summary", &no_summary, "no 'total: ...' line");
    args.flag("--mailback", &style.mailback, "print nothing for a clean input");
    args.positionals(&inputs, 0);
    if (auto rc = args.parse(argc, argv))
        return *rc;
    style.summary = !no_summary;
    if (tree.empty() && !inputs.empty() && is_tree_argument(inputs.front())) {
        tree = inputs.front();
        inputs.erase(inputs.begin());
    }
    if (tree.empty())
        tree = ".";
    if (format != "text" && format != "json" && format != "sarif") {
        std::fprintf(stderr, "ksweep check: --format must be text, json or sarif, not '%s'\n",
                     format.c_str());
        return 2;
    }
    if (!git_range.empty() && !inputs.empty()) {
        std::fprintf(stderr, "ksweep check: give patches or --git RANGE, not both\n");
        return 2;
    }
    if (git_range.empty() && inputs.empty()) {
        if (isatty(STDIN_FILENO)) {
            std::fprintf(stderr, "usage: ksweep check %s (see --help)\n",
                         "[options] [TREE] [PATCH|MBOX|DIR|-]... | [TREE] --git RANGE");
            return 2;
        }
        inputs.push_back("-");
    }

    // Inputs are read once: stdin cannot be read again for the second rule.
    std::vector<std::string> expanded;
    std::map<std::string, std::string> texts;
    if (git_range.empty())
        for (const auto& name : expand_directories(inputs)) {
            std::optional<std::string> text;
            try {
                text = read_input(name);
            } catch (const InputTooLarge& e) {
                std::fprintf(stderr,
                             "ksweep check: %s: %s: give its patches as separate files "
                             "(git format-patch -o DIR, then DIR)\n",
                             name.c_str(), e.what());
                return 2;
            }
            if (!text) {
                std::fprintf(stderr, "ksweep check: %s: cannot read\n", name.c_str());
                return 2;
            }
            expanded.push_back(name);
            texts[name] = std::move(*text);
        }

    try {
        require_tree_top("check", tree, {}, false);
        // A tree at the tip of a branch already holds its patches: their base comes from git.
        check::Overlay base;
        if (git_range.empty()) {
            check::BaseState state = check::find_base_state(all_patches(expanded, texts), tree);
            if (!state.said.empty())
                std::fprintf(stderr, "ksweep check: %s\n", state.said.c_str());
            base = std::move(state.base);
        }
        std::vector<Rule> rules = rule_options.load();
        TreeBuild build = resolve_tree_build("check", tree, tree_build, !lexical_only);
        RuleOptions::settle(rules, "check", build.sources_of(tree), build.build.parse_dir());
        check::CheckOptions options{tree, build.build.parse_dir(), !lexical_only, build.hz.hz};
        std::vector<std::vector<check::InputReport>> per_rule;
        int hz = 0;
        KernelVersion kernel;
        for (const Rule& rule : rules) {
            check::PatchChecker checker(rule, options);
            hz = checker.hz();
            kernel = checker.kernel();
            std::vector<check::InputReport>& reports = per_rule.emplace_back();
            if (!git_range.empty()) {
                // Each commit applies to its own parent: no overlay carries over.
                for (const auto& input : check::git_range_inputs(tree, git_range)) {
                    check::Overlay overlay;
                    reports.push_back(checker.check(input, overlay));
                }
                continue;
            }
            // Patch files given together are a series: each applies on top of the ones before.
            check::Overlay overlay = base;
            for (const auto& name : expanded) {
                check::CheckInput input{name, name, texts.at(name), check::tree_reader(tree)};
                if (name == "-")
                    input.vname = stdin_name(input.text);
                reports.push_back(checker.check(input, overlay));
            }
        }
        const std::vector<check::InputReport> reports = check::merge_reports(std::move(per_rule));

        if (lexical_only)
            std::fprintf(stderr, "ksweep check: lexical engine only: constants from headers and "
                                 "enums are reported as unresolved, and calls inside macros "
                                 "from headers are not seen\n");
        for (const auto& r : reports)
            for (const auto& note : r.notes)
                std::fprintf(stderr, "ksweep check: %s\n",
                             with_roots(note, machine_roots(tree)).c_str());

        // What a bot mails back or a CI page shows: the tree by its name, and no path of this
        // machine in any line (a patch named by its absolute path inside the tree, say).
        check::RunInfo run{KSWEEP_VERSION, tree_name(tree), hz, kernel};
        std::string out;
        if (format == "json")
            out = check::format_json(reports, rules, run);
        else if (format == "sarif")
            out = check::format_sarif(reports, rules, run);
        else
            out = check::format_text(reports, rules, style);
        std::fputs(with_roots(out, machine_roots(tree)).c_str(), stdout);

        for (const auto& r : reports)
            if (!r.warnings.empty() || !r.unresolved.empty())
                return 1;
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "ksweep check: %s\n", e.what());
    } catch (const RuleError& e) {
        std::fprintf(stderr, "ksweep check: %s\n", e.what());
    } catch (const kbuild::BuildDirError& e) {
        std::fprintf(stderr, "ksweep check: %s\n", e.what());
    } catch (const check::CheckError& e) {
        std::fprintf(stderr, "ksweep check: %s\n", e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "ksweep check: %s\n", e.what());
    }
    return 2;
}

} // namespace ksweep::cli
