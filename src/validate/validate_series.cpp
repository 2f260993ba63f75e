#include "validate/validate_series.h"

#include "core/file_io.h"
#include "core/process.h"
#include "core/strings.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::validate {

namespace {

bool is_cover_letter(std::string_view mail) {
    static const std::regex kCover(R"(^Subject: \[[^\]]*\b0+/[0-9]+\])", std::regex::multiline);
    return std::regex_search(mail.begin(), mail.end(), kCover);
}

} // namespace

std::string patch_subject(std::string_view mail) {
    std::istringstream in{std::string(mail)};
    std::string line, subject;
    bool in_subject = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (in_subject) {
            if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) {
                subject += line; // RFC 2822 folding: the line break goes, the space stays
                continue;
            }
            break;
        }
        if (line.empty())
            break; // end of the headers
        if (line.rfind("Subject:", 0) == 0) {
            subject = line.substr(8);
            in_subject = true;
        }
    }
    subject = trim(subject);
    if (!subject.empty() && subject[0] == '[') {
        auto close = subject.find(']');
        if (close != std::string::npos)
            subject = trim(subject.substr(close + 1));
    }
    return subject;
}

std::vector<std::string> patch_files(std::string_view mail) {
    static const std::regex kDiffGit(R"(^diff --git a/(\S+) b/(\S+))", std::regex::multiline);
    std::vector<std::string> files;
    for (std::cregex_iterator it(mail.data(), mail.data() + mail.size(), kDiffGit), end; it != end;
         ++it) {
        std::string file = (*it)[2];
        if (std::find(files.begin(), files.end(), file) == files.end())
            files.push_back(file);
    }
    return files;
}

std::string patch_base_commit(std::string_view mail) {
    static const std::regex kBase(R"(^base-commit: ([0-9a-f]{7,64})\s*$)", std::regex::multiline);
    std::cmatch m;
    return std::regex_search(mail.data(), mail.data() + mail.size(), m, kBase) ? m[1].str() : "";
}

Series read_series_dir(const std::string& dir) {
    if (!fs::is_directory(dir))
        throw SeriesError("series directory '" + dir + "' does not exist");
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(dir)) {
        auto ext = entry.path().extension();
        if (entry.is_regular_file() && (ext == ".patch" || ext == ".mbox" || ext == ".eml"))
            paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());

    Series series;
    series.source = dir;
    for (const auto& path : paths) {
        std::string mail = read_file(path).value_or("");
        if (series.base_commit.empty())
            series.base_commit = patch_base_commit(mail);
        if (is_cover_letter(mail))
            continue;
        SeriesPatch patch{path.string(), patch_subject(mail), patch_files(mail)};
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
