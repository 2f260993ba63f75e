#include "validate/checkpatch_run.h"

#include "core/process.h"

#include <filesystem>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace ksweep::validate {

CheckpatchCounts parse_checkpatch_output(std::string_view output) {
    static const std::regex kTotal(
        R"(^total: ([0-9]+) errors?, ([0-9]+) warnings?, (?:([0-9]+) checks?, )?[0-9]+ lines checked)");
    CheckpatchCounts counts;
    bool have_total = false;
    int errors = 0, warnings = 0, checks = 0;
    std::istringstream in{std::string(output)};
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, m, kTotal)) {
            counts.errors = std::stoi(m[1]);
            counts.warnings = std::stoi(m[2]);
            counts.checks = m[3].matched ? std::stoi(m[3]) : 0;
            have_total = true;
            continue;
        }
        bool is_error = line.rfind("ERROR:", 0) == 0, is_warning = line.rfind("WARNING:", 0) == 0,
             is_check = line.rfind("CHECK:", 0) == 0;
        if (!is_error && !is_warning && !is_check)
            continue;
        errors += is_error;
        warnings += is_warning;
        checks += is_check;
        std::string message = line;
        std::streampos after = in.tellg();
        std::string where;
        if (std::getline(in, where) && where.rfind('#', 0) == 0)
            message += " (" + where + ")";
        else
            in.seekg(after);
        counts.messages.push_back(message);
    }
    if (!have_total) {
        counts.errors = errors;
        counts.warnings = warnings;
        counts.checks = checks;
    }
    return counts;
}

CheckpatchRun run_checkpatch(const std::string& tree, const std::string& patch_path) {
    CheckpatchRun run;
    fs::path script = fs::path(tree) / "scripts" / "checkpatch.pl";
    if (!fs::is_regular_file(script)) {
        run.error = "no scripts/checkpatch.pl in '" + tree + "'";
        return run;
    }
    // checkpatch.pl's top_of_kernel_tree(): these must exist or it refuses to run.
    for (const char* dir : {"Documentation", "arch", "include", "drivers", "fs", "init", "ipc",
                            "kernel", "lib", "scripts"})
        fs::create_directories(fs::path(tree) / dir);
    // From the tree's top, so checkpatch finds its spelling list and the tree it checks against.
    CommandResult r = run_command(
        {"perl", script.string(), "--strict", "--color=never", fs::absolute(patch_path).string()},
        tree, std::chrono::seconds(300));
    run.counts = parse_checkpatch_output(r.output);
    // checkpatch exits 1 when it reports something; anything else without a total is a crash.
    if (r.status < 0 || (r.status > 1) ||
        (r.output.find("total: ") == std::string::npos &&
         r.output.find("has no obvious style problems") == std::string::npos)) {
        run.error = "checkpatch.pl did not finish (status " + std::to_string(r.status) +
                    "): " + r.output.substr(0, 500);
        return run;
    }
    run.ran = true;
    return run;
}

} // namespace ksweep::validate
