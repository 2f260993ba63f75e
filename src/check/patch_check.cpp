#include "check/patch_check.h"

#include "check/hunk_apply.h"
#include "check/shadow_tree.h"
#include "core/file_io.h"
#include "core/kernel_tree.h"
#include "rewrite/scanner.h"

#include <cstdio>
#include <filesystem>
#include <memory>

namespace fs = std::filesystem;

namespace ksweep::check {

namespace {

bool is_c_source(const std::string& path) {
    return path.ends_with(".c") || path.ends_with(".h");
}

std::string format_ms(double ms) {
    char buf[32];
    if (ms == static_cast<double>(static_cast<long long>(ms)))
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(ms));
    else
        std::snprintf(buf, sizeof buf, "%.1f", ms);
    return buf;
}

// The scanner names definitions tree-relative when they are inside the tree it was given;
// through the shadow tree's symlinks a definition may come back as a real-tree path.
std::string tree_relative(std::string where, const std::string& tree) {
    std::string prefix = fs::absolute(tree).lexically_normal().string();
    if (!prefix.ends_with('/'))
        prefix += '/';
    if (where.starts_with(prefix))
        where.erase(0, prefix.size());
    return where;
}

// "drivers/x.c:12" -> {"drivers/x.c", 12}
std::pair<std::string, unsigned> split_location(const std::string& where) {
    size_t colon = where.rfind(':');
    if (colon == std::string::npos)
        return {where, 0};
    try {
        return {where.substr(0, colon), static_cast<unsigned>(std::stoul(where.substr(colon + 1)))};
    } catch (const std::exception&) {
        return {where, 0};
    }
}

std::string without_spaces(std::string_view text) {
    std::string out;
    for (char c : text)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\\')
            out += c;
    return out;
}

// The removed lines of a patch, without whitespace: a call that reappears on an added line
// was moved or re-indented, not added, and a gate that flagged it would punish touching
// old code.
std::vector<std::string> removed_lines(const Patch& patch) {
    std::vector<std::string> removed;
    for (const auto& file : patch.files)
        for (const auto& hunk : file.hunks)
            for (const auto& line : hunk.lines)
                if (line.kind == '-')
                    removed.push_back(without_spaces(line.text));
    return removed;
}

// Takes one removed line that holds `call` out of `removed`; false if there is none.
bool take_moved(std::vector<std::string>& removed, const std::string& call) {
    std::string needle = without_spaces(call);
    for (auto it = removed.begin(); it != removed.end(); ++it)
        if (it->find(needle) != std::string::npos) {
            removed.erase(it);
            return true;
        }
    return false;
}

} // namespace

PreimageReader tree_reader(const std::string& tree) {
    return [tree](const std::string& path) { return read_file(fs::path(tree) / path); };
}

std::string suggest_replacement(const Rule& rule, const Finding& finding) {
    long long us = finding.value_ms.value_or(0) * 1000;
    // A named constant stays named, so the suggestion reads like the code it replaces.
    bool named = !finding.constant.empty() && (finding.resolution == Resolution::Macro ||
                                               finding.resolution == Resolution::Enum);
    std::string min = named ? finding.constant + " * 1000" : std::to_string(us);
    if (rule.target_for(finding.file) == Target::Fsleep)
        return "fsleep(" + min + ")";
    long long slack = slack_us(rule.slack_for(finding.file), us);
    std::string max = named ? min + " + " + std::to_string(slack) : std::to_string(us + slack);
    return "usleep_range(" + min + ", " + max + ")";
}

PatchChecker::PatchChecker(const Rule& rule, CheckOptions options)
    : rule_(rule), options_(std::move(options)) {
    if (options_.tree.empty() || !fs::is_directory(options_.tree))
        throw CheckError("no such tree: '" + options_.tree + "'");
    kernel_ = read_kernel_version(options_.tree).value_or(KernelVersion{});
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
    } catch (const DiffError& e) {
        throw CheckError(input.filename + ": " + e.what());
    }
    for (const auto& patch : patches) {
        auto warnings = check_patch(patch, input.preimage, overlay);
        for (auto& w : warnings) {
            w.patch_subject = patch.subject;
            report.warnings.push_back(std::move(w));
        }
        report.lines_checked += patch.lines_checked;
        ++report.patches;
    }
    return report;
}

std::vector<Warning> PatchChecker::check_patch(const Patch& patch, const PreimageReader& preimage,
                                               Overlay& overlay) const {
    auto current = [&](const std::string& path) -> std::optional<std::string> {
        if (auto it = overlay.find(path); it != overlay.end())
            return it->second;
        return preimage(path);
    };
    std::string where = patch.subject.empty() ? "" : " (\"" + patch.subject + "\")";

    // Apply every file first: a definition the patch adds to a header must be in place before
    // the C file that uses it is scanned.
    std::vector<std::pair<const FileDiff*, PostImage>> changed;
    std::map<std::string, std::set<unsigned>> added_by_patch;
    for (const auto& file : patch.files) {
        if (file.binary)
            continue;
        std::string pre;
        if (file.is_new()) {
            if (current(file.new_path))
                throw CheckError(file.new_path + ": patch" + where +
                                 " creates it, but it already exists in the tree");
        } else if (auto text = current(file.old_path)) {
            pre = std::move(*text);
        } else {
            throw CheckError(file.old_path + ": patch" + where + " changes it, but it is not in " +
                             options_.tree);
        }
        PostImage post;
        try {
            post = apply_hunks(file, pre);
        } catch (const ApplyError& e) {
            throw CheckError(std::string(e.what()) + where);
        }
        if (file.is_deleted() || file.old_path != file.new_path)
            if (!file.is_new())
                overlay[file.old_path] = std::nullopt;
        if (file.is_deleted())
            continue;
        overlay[file.new_path] = post.text;
        for (const auto& [line, diff_line] : post.added)
            added_by_patch[file.new_path].insert(line);
        changed.emplace_back(&file, std::move(post));
    }

    bool headers_changed = false;
    for (const auto& [path, text] : overlay)
        headers_changed |= path.ends_with(".h");
    std::unique_ptr<ShadowTree> shadow;

    std::vector<std::string> removed = removed_lines(patch);
    std::vector<Warning> warnings;
    for (const auto& [file, post] : changed) {
        if (post.added.empty() || !is_c_source(file->new_path))
            continue;
        if (headers_changed && !shadow)
            shadow = std::make_unique<ShadowTree>(options_.tree, overlay);
        ScanOptions scan_options;
        scan_options.tree = shadow ? shadow->root() : options_.tree;
        scan_options.build_dir = options_.build_dir;
        scan_options.semantic = options_.semantic;
        scan_options.hz = hz_;
        scan_options.jobs = 1;
        ScanResult scan = scan_buffer(rule_, scan_options, file->new_path, post.text);
        for (auto& finding : scan.findings) {
            auto added = post.added.find(finding.line);
            if (added == post.added.end() || !rule_.actionable(finding.value_ms) ||
                take_moved(removed, finding.call))
                continue;
            finding.defined_at =
                tree_relative(tree_relative(finding.defined_at, scan_options.tree), options_.tree);
            warnings.push_back(make_warning(finding, *added->second, added_by_patch));
        }
    }
    return warnings;
}

Warning
PatchChecker::make_warning(const Finding& finding, const DiffLine& added,
                           const std::map<std::string, std::set<unsigned>>& added_by_patch) const {
    Warning w;
    w.finding = finding;
    w.input_line = added.input_line;
    w.added_line = added.text;
    w.suggestion = suggest_replacement(rule_, finding);

    double predicted = finding.predicted_sleep_ms > 0
                           ? finding.predicted_sleep_ms
                           : predicted_msleep_ms(*finding.value_ms, hz_, kernel_);
    std::string value = std::to_string(*finding.value_ms);
    std::string resolved;
    if (finding.resolution == Resolution::Macro || finding.resolution == Resolution::Enum) {
        resolved = ": " + (finding.constant.empty() ? finding.argument : finding.constant) +
                   " is " + value;
        if (!finding.defined_at.empty()) {
            auto [def_file, def_line] = split_location(finding.defined_at);
            auto in_patch = added_by_patch.find(def_file);
            bool by_patch = in_patch != added_by_patch.end() && in_patch->second.count(def_line);
            resolved += std::string(finding.resolution == Resolution::Enum ? " (enumerator at "
                                                                           : " (#define at ") +
                        finding.defined_at + (by_patch ? ", added by this patch)" : ")");
        }
    } else if (finding.resolution == Resolution::Expression) {
        resolved = ": " + finding.argument + " is " + value;
    }
    w.message = finding.call + " < " + std::to_string(rule_.threshold_ms) +
                "ms can sleep for up to " + format_ms(predicted) +
                "ms at HZ=" + std::to_string(hz_) + resolved + "; use " + w.suggestion +
                "; see Documentation/timers/timers-howto.rst";
    return w;
}

} // namespace ksweep::check
