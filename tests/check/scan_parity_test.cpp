// check and scan on the same resolution: over the scanner's fixture tree (tests/fixtures/scan),
// for every call scan finds, a patch that adds it (turning another function's call into it, or
// writing it where there was none) is flagged by check exactly when scan marks the site
// actionable, at the same place and with the same value.
#include "check/patch_check.h"
#include "core/file_io.h"
#include "rewrite/scanner.h"

#include <gtest/gtest.h>

namespace ksweep::check {
namespace {

const std::string kScanTree = std::string(KSWEEP_FIXTURES) + "/scan";

// A unified diff of one file, every line of both sides in one hunk: the simplest patch that
// changes `before` into `after` (the gate only needs it to apply).
std::string whole_file_diff(const std::string& path, const std::string& before,
                            const std::string& after) {
    auto lines = [](const std::string& text) {
        std::vector<std::string> out;
        size_t start = 0;
        while (start < text.size()) {
            size_t end = text.find('\n', start);
            out.push_back(text.substr(start, end - start));
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
        return out;
    };
    auto old_lines = lines(before), new_lines = lines(after);
    std::string diff = "--- a/" + path + "\n+++ b/" + path + "\n@@ -1," +
                       std::to_string(old_lines.size()) + " +1," +
                       std::to_string(new_lines.size()) + " @@\n";
    for (size_t i = 0; i < old_lines.size(); ++i) {
        if (old_lines[i] == new_lines[i]) {
            diff += " " + old_lines[i] + "\n";
        } else {
            diff += "-" + old_lines[i] + "\n";
            diff += "+" + new_lines[i] + "\n";
        }
    }
    return diff;
}

TEST(ScanParity, CheckFlagsASiteExactlyWhenScanDoes) {
    const Rule rule = load_rule(default_rule_path());
    ScanOptions options;
    options.tree = kScanTree;
    options.jobs = 1;
    options.hz = 250;
    const ScanResult scan = scan_tree(rule, options);
    ASSERT_GT(scan.findings.size(), 20u);

    PatchChecker checker(rule, CheckOptions{kScanTree, "", true, 250});
    // The warning check gives the site when the file was `before` and the patch makes it what
    // it is, or nullptr.
    auto warning_at = [&](const Finding& site, const std::string& before,
                          const std::string& after) -> std::optional<Warning> {
        PreimageReader preimage = [&](const std::string& path) -> std::optional<std::string> {
            if (path == site.file)
                return before;
            return read_file(kScanTree + "/" + path);
        };
        Overlay overlay;
        CheckInput input{"p", "p", whole_file_diff(site.file, before, after), preimage};
        for (const Warning& w : checker.check(input, overlay).warnings)
            if (w.finding.file == site.file && w.finding.line == site.line &&
                w.finding.column == site.column)
                return w;
        return std::nullopt;
    };
    size_t flagged = 0;
    for (const Finding& site : scan.findings) {
        const std::string after = *read_file(kScanTree + "/" + site.file);
        // Two patches that add the call: one turns another function's call into it
        // (xmsleep(...) -> msleep(...)), one writes it where there was none (a "0" in its
        // place, its line breaks kept so that the lines stay where they are).
        std::string renamed = after;
        renamed.insert(site.call_begin, "x");
        std::string absent = "0";
        for (size_t i = 0; i < site.call.size(); ++i)
            if (site.call[i] == '\n')
                absent += i > 0 && site.call[i - 1] == '\\' ? " \\\n" : "\n";
        std::string written = after;
        written.replace(site.call_begin, site.call.size(), absent);
        for (const auto& [how, before] : {std::pair{"renamed", renamed}, {"written", written}}) {
            SCOPED_TRACE(site.file + ":" + std::to_string(site.line) + ": " + site.call + " (" +
                         how + ")");
            const std::optional<Warning> w = warning_at(site, before, after);
            if (site.actionable) {
                if (!w) {
                    ADD_FAILURE() << "scan: actionable, " << *site.value << " ms; check: silent";
                    continue;
                }
                EXPECT_EQ(w->finding.value, site.value);
                EXPECT_EQ(w->finding.resolution, site.resolution);
                ++flagged;
            } else {
                EXPECT_FALSE(w) << "scan: not actionable; check: " << (w ? w->message : "");
            }
        }
    }
    EXPECT_GT(flagged, 20u);
}

} // namespace
} // namespace ksweep::check
