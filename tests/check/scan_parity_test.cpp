// check and scan on the same resolution: over the scanner's fixture tree (tests/fixtures/scan),
// for every call scan finds, a patch that turns another function's call into it (the pre-image
// says x<callee>(...), the patch makes it <callee>(...)) is flagged by check exactly when scan
// marks the site actionable, at the same place and with the same value.
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
    size_t flagged = 0;
    for (const Finding& site : scan.findings) {
        SCOPED_TRACE(site.file + ":" + std::to_string(site.line) + ": " + site.call);
        const std::string after = *read_file(kScanTree + "/" + site.file);
        std::string before = after;
        before.insert(site.call_begin, "x"); // msleep(...) -> xmsleep(...): not the rule's call
        PreimageReader preimage = [&](const std::string& path) -> std::optional<std::string> {
            if (path == site.file)
                return before;
            return read_file(kScanTree + "/" + path);
        };
        Overlay overlay;
        CheckInput input{"p", "p", whole_file_diff(site.file, before, after), preimage};
        InputReport report = checker.check(input, overlay);

        const Warning* at_site = nullptr;
        for (const Warning& w : report.warnings)
            if (w.finding.file == site.file && w.finding.line == site.line &&
                w.finding.column == site.column)
                at_site = &w;
        if (site.actionable) {
            if (!at_site) {
                ADD_FAILURE() << "scan: actionable, " << *site.value_ms << " ms; check: silent";
                continue;
            }
            EXPECT_EQ(at_site->finding.value_ms, site.value_ms);
            EXPECT_EQ(at_site->finding.resolution, site.resolution);
            ++flagged;
        } else {
            EXPECT_EQ(at_site, nullptr)
                << "scan: not actionable; check: " << (at_site ? at_site->message : "");
        }
    }
    EXPECT_GT(flagged, 10u);
}

} // namespace
} // namespace ksweep::check
