#include "rewrite/cocci_engine.h"

#include "kbuild/kernel_tree.h"
#include "rewrite/scanner.h"

#include <algorithm>
#include <filesystem>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep {

using namespace ksweep::kbuild;

namespace {

// An integer literal as the rule's python helper reads it: 5, 0x5, 05, 5UL.
std::optional<long long> literal_value(std::string text) {
    while (!text.empty() &&
           (text.back() == 'u' || text.back() == 'U' || text.back() == 'l' || text.back() == 'L'))
        text.pop_back();
    if (text.empty())
        return std::nullopt;
    try {
        size_t used = 0;
        long long v = std::stoll(text, &used, 0); // base 0: 0x hex, leading 0 octal
        return used == text.size() ? std::optional(v) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string slurp(const std::string& path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    return buffer ? (*buffer)->getBuffer().str() : std::string();
}

std::string temp_file(const char* suffix) {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("ksweep-spatch", suffix, path))
        throw std::runtime_error("cannot create a temporary file for spatch's output");
    return std::string(path);
}

struct SpatchRun {
    int status = 0;
    std::string out, err;
};

SpatchRun run_spatch(const std::string& program, const std::vector<std::string>& args) {
    std::string out_path = temp_file("out"), err_path = temp_file("err");
    std::vector<llvm::StringRef> argv{program};
    for (const auto& a : args)
        argv.push_back(a);
    llvm::Optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out_path),
                                                   llvm::StringRef(err_path)};
    std::string message;
    SpatchRun run;
    run.status = llvm::sys::ExecuteAndWait(program, argv, llvm::None, redirects, 0, 0, &message);
    run.out = slurp(out_path);
    run.err = message.empty() ? slurp(err_path) : message;
    llvm::sys::fs::remove(out_path);
    llvm::sys::fs::remove(err_path);
    return run;
}

std::string first_lines(const std::string& text, int count) {
    std::istringstream in(text);
    std::string line, out;
    for (int i = 0; i < count && std::getline(in, line); ++i)
        out += (out.empty() ? "" : " | ") + line;
    return out;
}

} // namespace

std::string cocci_twin(const Rule& rule) {
    return fs::path(rule.source_path).replace_extension(".cocci").string();
}

std::vector<Finding> parse_cocci_report(const std::string& output, const std::string& tree,
                                        const Rule& rule, int hz, KernelVersion kernel) {
    // rules/msleep_small.cocci's report lines: a literal, or a macro with its value and line.
    static const std::regex line_re(
        R"(^(.+):(\d+):(\d+)-(\d+): WARNING: (\w+)\((.*?)\) < \d+ms [^;]*;)"
        R"( (?:(\w+) is (\d+), #define at line (\d+); )?use .*$)");
    // A twin of a rule whose forms convert their argument reports callee(through(ARG)).
    static const std::regex through_re(R"(^(\w+)\s*\((.*)\)$)");
    std::string prefix = fs::path(tree).lexically_normal().string();
    if (!prefix.ends_with('/'))
        prefix += '/';
    std::vector<Finding> findings;
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (!std::regex_match(line, m, line_re))
            continue;
        Finding f;
        f.file = m[1].str();
        if (f.file.starts_with(prefix))
            f.file.erase(0, prefix.size());
        f.line = static_cast<unsigned>(std::stoul(m[2].str()));
        f.column = static_cast<unsigned>(std::stoul(m[3].str())) + 1; // spatch counts from 0
        f.rule = rule.name;
        f.callee = m[5].str();
        f.argument = m[6].str();
        f.call = f.callee + "(" + f.argument + ")";
        if (std::smatch t;
            std::regex_match(f.argument, t, through_re) && rule.form_for(f.callee, t[1].str())) {
            f.through = t[1].str();
            f.argument = t[2].str();
        }
        if (const CallForm* form = rule.form_for(f.callee, f.through))
            f.unit = form->unit;
        f.engine = Engine::Cocci;
        if (m[7].matched) {
            f.resolution = Resolution::Macro;
            f.constant = m[7].str();
            f.value = std::stoll(m[8].str());
            f.defined_at = f.file + ":" + m[9].str();
        } else {
            f.resolution = Resolution::Literal;
            f.value = literal_value(f.argument);
        }
        judge_finding(f, rule, hz, msleep_extra_jiffy(kernel));
        findings.push_back(std::move(f));
    }
    std::sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.file, a.line, a.column) < std::tie(b.file, b.line, b.column);
    });
    return findings;
}

CocciParseFailures cocci_parse_failures(const std::string& spatch, const std::string& file) {
    CocciParseFailures failures;
    auto program = llvm::sys::findProgramByName(spatch);
    if (!program)
        return failures;
    SpatchRun run = run_spatch(*program, {"--parse-c", file});
    // A failed definition is printed as its "bad:" lines, then "ERROR-RECOV: found sync '}'
    // at line S" where the parser resynchronized: the run of n bad lines is [S - n + 1, S].
    // Some failures print their bad lines elsewhere; their text is kept for matching.
    static const std::regex sync_re(R"(^ERROR-RECOV: found sync .* at line (\d+))");
    std::istringstream in(run.out + "\n" + run.err);
    unsigned bad_run = 0;
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (line.starts_with("bad:")) {
            ++bad_run;
            std::string text = line.substr(4);
            size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
            failures.bad_lines.insert(b == std::string::npos ? "" : text.substr(b, e - b + 1));
            continue;
        }
        if (std::regex_search(line, m, sync_re) && bad_run > 0) {
            unsigned sync = static_cast<unsigned>(std::stoul(m[1].str()));
            if (sync >= bad_run)
                failures.ranges.emplace_back(sync - bad_run + 1, sync);
        }
        bad_run = 0;
    }
    return failures;
}

CocciResult run_cocci_scan(const Rule& rule, const CocciOptions& options) {
    std::string sp_file = options.sp_file.empty() ? cocci_twin(rule) : options.sp_file;
    if (!fs::is_regular_file(sp_file))
        throw std::runtime_error("no semantic patch at " + sp_file);
    if (!fs::is_directory(options.tree))
        throw std::runtime_error("no such tree: " + options.tree);
    auto program = llvm::sys::findProgramByName(options.spatch);
    if (!program)
        throw std::runtime_error("cannot find " + options.spatch + " (Debian: coccinelle)");

    CocciResult result;
    std::vector<std::string> targets = options.paths;
    if (targets.empty())
        targets.push_back("");
    for (const auto& rel : targets) {
        fs::path target = fs::path(options.tree) / rel;
        // The rule's own "// Options:" line, as make coccicheck passes it.
        std::vector<std::string> args{"--sp-file",
                                      sp_file,
                                      "-D",
                                      "report",
                                      "--no-includes",
                                      "--include-headers",
                                      "--very-quiet",
                                      "-j",
                                      std::to_string(options.jobs)};
        if (fs::is_directory(target)) {
            args.push_back("--dir");
        } else if (!fs::is_regular_file(target)) {
            result.errors.push_back(rel + ": no such file or directory");
            continue;
        }
        args.push_back(target.lexically_normal().string());
        std::string command = *program;
        for (const auto& a : args)
            command += " " + a;
        result.commands.push_back(command);

        SpatchRun run = run_spatch(*program, args);
        if (run.status != 0)
            result.errors.push_back((rel.empty() ? "." : rel) + ": spatch exit status " +
                                    std::to_string(run.status) + ": " + first_lines(run.err, 3));
        auto found = parse_cocci_report(run.out, options.tree, rule, options.hz, options.kernel);
        result.findings.insert(result.findings.end(), found.begin(), found.end());
    }
    auto location = [](const Finding& f) { return std::tie(f.file, f.line, f.column); };
    std::sort(result.findings.begin(), result.findings.end(),
              [&](const Finding& a, const Finding& b) { return location(a) < location(b); });
    // A macro with two small #defines (under #ifdef) is reported once per definition.
    result.findings.erase(
        std::unique(result.findings.begin(), result.findings.end(),
                    [&](const Finding& a, const Finding& b) { return location(a) == location(b); }),
        result.findings.end());
    return result;
}

ScanResult cocci_scan_tree(const Rule& rule, const ScanOptions& options) {
    ScanResult result;
    result.kernel = read_kernel_version(options.tree).value_or(KernelVersion{});
    std::string build_dir =
        options.build_dir.empty() ? find_build_dir(options.tree, result.kernel) : options.build_dir;
    if (options.hz > 0)
        result.hz = options.hz;
    else if (auto hz = build_dir.empty() ? std::nullopt : read_config_hz(build_dir))
        result.hz = *hz;
    CocciOptions cocci;
    cocci.tree = options.tree;
    cocci.paths = options.paths;
    cocci.jobs = options.jobs;
    cocci.hz = result.hz;
    cocci.kernel = result.kernel;
    CocciResult found = run_cocci_scan(rule, cocci);
    result.findings = std::move(found.findings);
    result.errors = std::move(found.errors);
    std::set<std::string> files;
    for (const auto& f : result.findings)
        files.insert(f.file);
    result.files_scanned = files.size(); // spatch does not say how many files it skipped
    return result;
}

} // namespace ksweep
