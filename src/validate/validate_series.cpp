#include "validate/validate_series.h"

#include "check/unified_diff.h"
#include "core/file_io.h"
#include "core/process.h"
#include "core/strings.h"
#include "core/tree_path.h"

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;

namespace ksweep::validate {

namespace {

// "[PATCH v2 1/3] tpm: x" -> "tpm: x".
std::string without_tag(std::string subject) {
    subject = trim(subject);
    if (!subject.empty() && subject[0] == '[') {
        auto close = subject.find(']');
        if (close != std::string::npos)
            subject = trim(subject.substr(close + 1));
    }
    return subject;
}

// The files the patches change, in order, once each: the new name, or the old one of a file
// a patch deletes.
std::vector<std::string> files_of(const std::vector<check::Patch>& patches) {
    std::vector<std::string> files;
    for (const check::Patch& patch : patches)
        for (const check::FileDiff& diff : patch.files) {
            const std::string& file = diff.is_deleted() ? diff.old_path : diff.new_path;
            if (std::find(files.begin(), files.end(), file) == files.end())
                files.push_back(file);
        }
    return files;
}

} // namespace

std::string patch_subject(std::string_view mail) {
    return without_tag(check::read_patches(mail).front().subject);
}

std::vector<std::string> patch_files(std::string_view mail) {
    return files_of(check::read_patches(mail));
}

std::string patch_base_commit(std::string_view mail) {
    // By hand, not std::regex: its matcher recurses per character, and a mail is outside input.
    constexpr std::string_view kPrefix = "base-commit: ";
    for (size_t start = 0; start < mail.size();) {
        const size_t end = std::min(mail.find('\n', start), mail.size());
        std::string_view line = mail.substr(start, end - start);
        start = end + 1;
        if (!line.starts_with(kPrefix))
            continue;
        line.remove_prefix(kPrefix.size());
        const size_t hex = std::min(line.find_first_not_of("0123456789abcdef"), line.size());
        if (hex >= 7 && hex <= 64 && trim(std::string(line.substr(hex))).empty())
            return std::string(line.substr(0, hex));
    }
    return "";
}

Series read_series_dir(const std::string& dir) {
    if (!fs::is_directory(dir))
        throw SeriesError("series directory '" + dir + "' does not exist");
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(dir)) {
        auto ext = entry.path().extension();
        if (ext == ".patch" || ext == ".mbox" || ext == ".eml")
            paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());

    Series series;
    series.source = dir;
    for (const auto& path : paths) {
        // The mails are outside input: no link to elsewhere, a bounded size, every path in
        // them checked by the reader `ksweep check` uses.
        std::vector<check::Patch> patches;
        std::string mail;
        try {
            const fs::path file = path_in_tree(dir, path.filename().string());
            if (!fs::is_regular_file(file))
                continue;
            mail = read_file_at_most(file, check::kMaxInputBytes).value_or("");
            patches = check::read_patches(mail);
        } catch (const std::runtime_error& e) { // TreePathError, InputTooLarge, DiffError
            throw SeriesError(path.string() + ": " + e.what());
        }
        if (series.base_commit.empty())
            series.base_commit = patch_base_commit(mail);
        if (check::is_cover_letter_subject(patches.front().subject))
            continue;
        SeriesPatch patch{path.string(), without_tag(patches.front().subject), files_of(patches)};
        if (patch.files.empty())
            continue; // a mail without a diff has nothing to validate
        series.patches.push_back(std::move(patch));
    }
    if (series.patches.empty())
        throw SeriesError("no patches (*.patch files with a diff) in '" + dir + "'");
    return series;
}

Series series_from_git_range(const std::string& repo, const std::string& range,
                             const std::string& out_dir) {
    auto dots = range.find("..");
    if (dots == std::string::npos || dots == 0 || range.find("...") != std::string::npos)
        throw SeriesError("--git wants a range A..B, got '" + range + "'");
    auto git = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {"git", "-C", repo});
        CommandResult r = run_command(args, "", std::chrono::seconds(300));
        if (r.status != 0)
            throw SeriesError("git " + args[3] + " " + range + ": " + trim(r.output));
        return trim(r.output);
    };
    std::string base =
        git({"rev-parse", "--verify", "--quiet", range.substr(0, dots) + "^{commit}"});
    fs::create_directories(out_dir);
    git({"format-patch", "--quiet", "--no-cover-letter", "-o", out_dir, range});
    Series series = read_series_dir(out_dir);
    series.base_commit = base;
    series.source = range;
    return series;
}

} // namespace ksweep::validate
