#include "validate/validate_run.h"

#include "core/cache_dir.h"
#include "core/file_io.h"
#include "core/process.h"
#include "core/sha256.h"
#include "core/shared_paths.h"
#include "git/base_blobs.h"
#include "git/repository.h"
#include "guest/guest_benchmark.h"
#include "kbuild/kernel_tree.h"
#include "kbuild/modules.h"
#include "kbuild/prepared_build.h"
#include "validate/checkpatch_run.h"
#include "validate/git_am.h"
#include "validate/levels_device.h"
#include "validate/levels_module_build.h"
#include "validate/report_render.h"
#include "validate/validate_series.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <system_error>

namespace fs = std::filesystem;

namespace ksweep::validate {

using namespace ksweep::git;

using namespace ksweep::guest;

using namespace ksweep::kbuild;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string utc_now() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return buf;
}

bool wants(const ValidateOptions& o, int level) {
    return std::find(o.levels.begin(), o.levels.end(), level) != o.levels.end();
}

// What the scratch checkout needs for these files: each file's directory with everything
// below it, and the files directly in its parent (private headers are often included as
// "../x.h"; a composite module may be listed in the parent's Makefile, and is then added).
struct SparseSet {
    std::vector<std::string> dirs, file_dirs;
};

SparseSet sparse_set_for(const Series& series) {
    std::set<std::string> dirs{"scripts"}, parents; // L2 runs the base tree's checkpatch.pl
    for (const auto& patch : series.patches)
        for (const auto& file : patch.files) {
            fs::path dir = fs::path(file).parent_path();
            if (dir.empty())
                continue; // a top-level file: always checked out
            dirs.insert(dir.string());
            if (!dir.parent_path().empty())
                parents.insert(dir.parent_path().string());
        }
    return {{dirs.begin(), dirs.end()}, {parents.begin(), parents.end()}};
}

// The modules the patch's C files build into. A header counts through the .c files of its
// directory that include it by name.
std::vector<KbuildModule> modules_touched(const std::string& root,
                                          const std::vector<std::string>& files,
                                          std::vector<std::string>& unresolved) {
    std::vector<std::string> sources;
    for (const auto& file : files) {
        fs::path p(file);
        if (p.extension() == ".c") {
            sources.push_back(file);
        } else if (p.extension() == ".h") {
            std::regex includes("#[ \t]*include[ \t]*\"" + p.filename().string() + "\"");
            fs::path dir = fs::path(root) / p.parent_path();
            if (!fs::is_directory(dir))
                continue;
            for (const auto& entry : fs::directory_iterator(dir))
                if (entry.path().extension() == ".c")
                    if (auto text = read_tree_file(
                            root, (p.parent_path() / entry.path().filename()).string());
                        text && std::regex_search(*text, includes))
                        sources.push_back((p.parent_path() / entry.path().filename()).string());
        }
    }
    std::vector<KbuildModule> modules;
    for (const auto& source : sources) {
        auto m = find_module(root, source, read_tree_file);
        if (!m) {
            unresolved.push_back(source);
            continue;
        }
        bool seen = std::any_of(modules.begin(), modules.end(), [&](const KbuildModule& k) {
            return k.name == m->name && k.directory == m->directory;
        });
        if (!seen)
            modules.push_back(*m);
    }
    return modules;
}

std::string file_sha256(const std::string& path) {
    auto content = read_file(path);
    if (!content)
        throw std::runtime_error("cannot read " + path);
    return to_hex(sha256(*content));
}

struct Snapshots {
    std::vector<SourceSnapshot> baseline, patched;
};

class SeriesValidator {
  public:
    SeriesValidator(const ValidateOptions& options, ValidationReport& report)
        : options_(options), report_(report) {}

    void run();

  private:
    void progress(const std::string& what) {
        if (options_.on_progress)
            options_.on_progress(what);
    }
    void validate_patch(const SeriesPatch& patch, PatchResult& result);
    void level_checkpatch(const SeriesPatch& patch, PatchResult& result);
    void level_build(PatchResult& result, const std::vector<KbuildModule>& modules,
                     const Snapshots& snaps);
    void level_device(PatchResult& result, const std::vector<KbuildModule>& modules,
                      const Snapshots& snaps);
    // One row of L4: the patch's module booted at one HZ with one wiring of the interrupt line.
    void boot_device(PatchResult& result, const device::DeviceEntry& device,
                     const KbuildModule& module, const SourceSnapshot& baseline,
                     const SourceSnapshot& patched, int hz, device::InterruptMode wiring);
    // Opens the LAVA export or reads the LAVA results when asked; false (with report_.errors)
    // when they cannot be used.
    bool set_up_lava(const Series& series);
    // A scratch repository's base holds few of its files (git/base_blobs.h): those a checkout
    // of `dirs` (and of the files directly in `file_dirs`) needs are written from the tree.
    void complete_base(const std::vector<std::string>& dirs,
                       const std::vector<std::string>& file_dirs) const;

    const ValidateOptions& options_;
    ValidationReport& report_;
    std::string work_dir_, cache_dir_;
    KernelConfig config_;
    std::unique_ptr<ScratchCheckout> checkout_;
    std::string scratch_repository_; // the scratch repository of a tree outside git, else ""
    std::optional<LavaExport> lava_export_;
    std::optional<LavaResults> lava_results_;
    LavaBootKey lava_series_;                         // version, series and HZ of every job
    std::map<int, std::string> guest_build_failures_; // HZ -> why its guest kernel did not build
};

void SeriesValidator::run() {
    cache_dir_ = options_.cache_dir.empty() ? ksweep::cache_dir() : options_.cache_dir;
    work_dir_ = options_.work_dir;
    fs::create_directories(work_dir_);

    Series series;
    try {
        series = options_.series_dir.empty()
                     ? series_from_git_range(options_.tree, options_.git_range,
                                             (fs::path(work_dir_) / "series").string())
                     : read_series_dir(options_.series_dir);
    } catch (const std::exception& e) {
        report_.errors.push_back(e.what());
        return;
    }
    report_.series = series.source;
    if (!set_up_lava(series))
        return;

    // The repository the base commit lives in: the tree's own, or the scratch repository
    // `ksweep series` made for a tree outside git (same cache, same fingerprint).
    std::string repository;
    try {
        progress("opening the repository of " + options_.tree);
        git::LibGit2 libgit2; // declared first: outlives the repository handle below
        git::SeriesRepo repo = git::open_series_repo(options_.tree, cache_dir_);
        repository = repo.git_dir;
        if (repo.owned)
            scratch_repository_ = repo.git_dir;
        report_.base_commit =
            series.base_commit.empty() ? git::oid_hex(repo.base) : series.base_commit;
    } catch (const std::exception& e) {
        report_.errors.push_back(std::string("cannot open a repository for the tree: ") + e.what());
        return;
    }

    if (wants(options_, 3) || wants(options_, 4)) {
        if (auto text = read_tree_file(report_.headers_dir, ".config"))
            config_ = parse_kernel_config(*text);
        else
            report_.errors.push_back("no .config in headers directory '" + report_.headers_dir +
                                     "': L3 cannot tell which drivers the config enables");
    }

    try {
        progress("checking out " + report_.base_commit.substr(0, 12) + " (sparse) for git am");
        SparseSet sparse = sparse_set_for(series);
        complete_base(sparse.dirs, sparse.file_dirs);
        checkout_ = std::make_unique<ScratchCheckout>(repository, report_.base_commit, sparse.dirs,
                                                      sparse.file_dirs,
                                                      (fs::path(work_dir_) / "checkout").string());
    } catch (const std::exception& e) {
        report_.errors.push_back(e.what());
        return;
    }
    if (options_.keep_work)
        checkout_->keep();

    for (size_t i = 0; i < series.patches.size(); ++i) {
        const SeriesPatch& patch = series.patches[i];
        PatchResult result;
        result.number = i + 1;
        result.path = patch.path;
        result.subject = patch.subject;
        result.files = patch.files;
        progress("patch " + std::to_string(i + 1) + "/" + std::to_string(series.patches.size()) +
                 ": " + patch.subject);
        validate_patch(patch, result);
        report_.patches.push_back(std::move(result));
    }
    if (lava_export_)
        progress("LAVA: " + std::to_string(lava_export_->job_count()) + " jobs, manifest " +
                 lava_export_->write_manifest());
}

bool SeriesValidator::set_up_lava(const Series& series) {
    if (options_.lava_dir.empty() && options_.lava_results.empty())
        return true;
    try {
        if (options_.series_dir.empty())
            throw std::runtime_error("LAVA jobs name their series by its directory: use --series");
        lava_series_.version = KSWEEP_VERSION;
        lava_series_.series = fs::absolute(options_.series_dir).lexically_normal().filename();
        lava_series_.series_sha256 = lava_series_sha256(options_.series_dir);
        if (!options_.lava_dir.empty())
            lava_export_.emplace(options_.lava_dir, options_.lava_artifacts_url);
        if (!options_.lava_results.empty()) {
            LavaExpectation expected{lava_series_.version, lava_series_.series_sha256, {}};
            for (size_t i = 0; i < series.patches.size(); ++i)
                expected.patch_sha256[static_cast<int>(i + 1)] =
                    file_sha256(series.patches[i].path);
            lava_results_ = LavaResults::load(options_.lava_results, expected);
            progress("LAVA: " + std::to_string(lava_results_->size()) + " job results read");
        }
    } catch (const std::exception& e) {
        report_.errors.push_back(e.what());
        return false;
    }
    return true;
}

void SeriesValidator::complete_base(const std::vector<std::string>& dirs,
                                    const std::vector<std::string>& file_dirs) const {
    if (scratch_repository_.empty())
        return;
    git::LibGit2 libgit2;
    git_repository* raw = nullptr;
    git::check(git_repository_open_bare(&raw, scratch_repository_.c_str()),
               "git_repository_open_bare");
    git::Repository repo(raw);
    git_oid base;
    if (git_oid_fromstr(&base, report_.base_commit.c_str()) != 0)
        throw git::GitError("base commit '" + report_.base_commit + "' is not a full commit id");
    git_commit* raw_commit = nullptr;
    if (git_commit_lookup(&raw_commit, repo.get(), &base) != 0)
        throw git::GitError("base commit " + report_.base_commit.substr(0, 12) +
                            " is not in the scratch repository of " + options_.tree +
                            " as it is now (" + scratch_repository_ +
                            "): the tree changed since the series was made; run ksweep series "
                            "on it again");
    git::Commit found(raw_commit);
    git::fill_base_blobs(repo.get(), base, options_.tree, dirs, file_dirs);
}

void SeriesValidator::validate_patch(const SeriesPatch& patch, PatchResult& result) {
    for (int l = 1; l <= 4; ++l)
        result.levels[l - 1].status =
            wants(options_, l) ? LevelStatus::not_run : LevelStatus::skipped;

    // Modules are found and snapshotted as the tree is before the patch...
    std::vector<std::string> unresolved;
    std::vector<KbuildModule> modules;
    Snapshots snaps;
    bool need_sources = wants(options_, 3) || wants(options_, 4);
    if (need_sources) {
        modules = modules_touched(checkout_->dir(), patch.files, unresolved);
        std::vector<std::string> dirs;
        for (const auto& m : modules)
            dirs.push_back(m.directory);
        try {
            complete_base(dirs, {});
        } catch (const std::exception& e) {
            report_.errors.push_back(e.what());
        }
        checkout_->include(dirs);
        for (const auto& m : modules)
            snaps.baseline.push_back(snapshot_module(checkout_->dir(), m));
    }

    // L1: git am. Without it nothing later means anything.
    auto start = Clock::now();
    AmResult am = checkout_->am(patch.path);
    LevelResult& l1 = result.levels[0];
    l1.seconds = seconds_since(start);
    if (!am.applied) {
        if (wants(options_, 1)) {
            l1.status = LevelStatus::failed;
            l1.message = "does not apply to " + checkout_->head().substr(0, 12);
            l1.details.push_back(am.message);
        } else {
            report_.errors.push_back(
                "patch " + std::to_string(result.number) +
                " does not apply; L1 was not requested but later levels need it");
        }
        for (int l = 2; l <= 4; ++l)
            if (result.levels[l - 1].status != LevelStatus::skipped)
                result.levels[l - 1].message = "L1 failed";
        return;
    }
    if (wants(options_, 1)) {
        l1.status = LevelStatus::passed;
        l1.message = "applies (" + am.commit.substr(0, 12) + ")";
    }

    // ...and again after it.
    for (const auto& m : modules)
        snaps.patched.push_back(snapshot_module(checkout_->dir(), m));

    if (wants(options_, 2))
        level_checkpatch(patch, result);
    if (wants(options_, 3)) {
        level_build(result, modules, snaps);
        for (const auto& source : unresolved)
            result.levels[2].details.push_back(source + ": no obj- rule for it in its Makefile");
    }
    if (wants(options_, 4))
        level_device(result, modules, snaps);
}

void SeriesValidator::level_checkpatch(const SeriesPatch& patch, PatchResult& result) {
    LevelResult& level = result.levels[1];
    auto start = Clock::now();
    CheckpatchRun run = run_checkpatch(checkout_->dir(), patch.path);
    level.seconds = seconds_since(start);
    result.checkpatch = run.counts;
    if (!run.ran) {
        level.status = LevelStatus::failed;
        level.message = run.error;
        return;
    }
    const CheckpatchCounts& c = run.counts;
    level.message = std::to_string(c.errors) + " errors, " + std::to_string(c.warnings) +
                    " warnings, " + std::to_string(c.checks) + " checks";
    level.status = c.errors || c.warnings || c.checks ? LevelStatus::failed : LevelStatus::passed;
    level.details = c.messages;
}

void SeriesValidator::level_build(PatchResult& result, const std::vector<KbuildModule>& modules,
                                  const Snapshots& snaps) {
    LevelResult& level = result.levels[2];
    auto start = Clock::now();
    std::string build_cache = (fs::path(cache_dir_) / "validate-builds").string();
    std::vector<std::string> built, not_built, failed;
    for (size_t i = 0; i < modules.size(); ++i) {
        const KbuildModule& m = modules[i];
        ModuleOutcome out;
        out.name = m.name;
        out.directory = m.directory;
        out.config = m.config;
        out.config_value = module_config_value(m, config_);
        if (out.config_value.empty() || (m.fixed == 'y')) {
            out.status = LevelStatus::not_built;
            out.message = m.fixed == 'y' ? "not built (obj-y: always built into the kernel)"
                                         : "not built (" + m.config + " not set)";
            not_built.push_back(m.name + ": " + out.message);
        } else {
            progress("  L3: building " + m.name + " (baseline, patched)");
            KbuildResult before =
                build_module_snapshot(snaps.baseline[i], m, report_.headers_dir, build_cache);
            KbuildResult after =
                build_module_snapshot(snaps.patched[i], m, report_.headers_dir, build_cache);
            out.new_warnings = new_warnings(before.warnings, after.warnings);
            if (!after.ok) {
                out.status = LevelStatus::failed;
                out.message = "patched build failed" +
                              std::string(before.ok ? "" : " (the baseline fails too)") + ": " +
                              after.error.substr(0, after.error.find('\n')) + " (log " +
                              after.log_path + ")";
            } else if (!out.new_warnings.empty()) {
                out.status = LevelStatus::failed;
                out.message = std::to_string(out.new_warnings.size()) + " new warning(s)";
            } else {
                out.status = LevelStatus::passed;
                out.message =
                    std::string("builds") +
                    (out.config_value == "y" ? " (built in by the config; as a module here)" : "") +
                    ", no new warnings" +
                    (linked_without_symvers(report_.headers_dir)
                         ? " (no Module.symvers in the build dir: unresolved symbols not checked)"
                         : "");
            }
            (out.status == LevelStatus::passed ? built : failed)
                .push_back(m.name + ": " + out.message);
            for (const auto& w : out.new_warnings)
                level.details.push_back(m.name + ": new warning: " + w);
        }
        result.modules.push_back(out);
    }
    level.seconds = seconds_since(start);

    auto join = [](const std::vector<std::string>& items) {
        std::string s;
        for (const auto& item : items)
            s += (s.empty() ? "" : "; ") + item;
        return s;
    };
    if (!failed.empty()) {
        level.status = LevelStatus::failed;
        level.message = join(failed);
    } else if (!built.empty()) {
        level.status = LevelStatus::passed;
        level.message = join(built) + (not_built.empty() ? "" : "; " + join(not_built));
    } else if (!not_built.empty()) {
        level.status = LevelStatus::not_built;
        level.message = join(not_built);
    } else {
        level.status = LevelStatus::not_applicable;
        level.message = "no module source changed";
    }
}

void SeriesValidator::boot_device(PatchResult& result, const device::DeviceEntry& device,
                                  const KbuildModule& module, const SourceSnapshot& baseline,
                                  const SourceSnapshot& patched, int hz,
                                  device::InterruptMode wiring) {
    LevelResult& level = result.levels[3];
    bool has_line = device.interrupt != device::InterruptMode::none;
    std::string name =
        module.name + " HZ=" + std::to_string(hz) +
        (has_line ? (wiring == device::InterruptMode::wired ? " IRQ" : " no IRQ") : "");
    LevelResult one;
    if (wiring != device::InterruptMode::none && (lava_export_ || lava_results_)) {
        // The lab's device dictionary (lava/) starts ksweep-tpmd with the I2C socket alone.
        one.status = LevelStatus::failed;
        one.message = "the interrupt line is not wired in LAVA jobs (lava/ serves the I2C bus "
                      "alone): run this row locally, or give --interrupt none";
    } else if (auto failed = guest_build_failures_.find(hz);
               failed != guest_build_failures_.end()) {
        // Built once per run: a guest kernel that failed for an earlier patch fails again.
        one.status = LevelStatus::failed;
        one.message = failed->second + " (as for an earlier patch; not built again)";
    } else {
        DeviceRunOptions run;
        run.tree = options_.guest_tree.empty() ? options_.tree : options_.guest_tree;
        run.hz = hz;
        run.boots = options_.boots;
        run.extends = options_.extends;
        run.profile = options_.profile;
        run.interrupt = wiring;
        run.work_dir =
            (fs::path(work_dir_) / ("l4-patch-" + std::to_string(result.number))).string();
        run.on_progress = [this](const std::string& what) { progress("  L4: " + what); };
        run.lava_export = lava_export_ ? &*lava_export_ : nullptr;
        run.lava_results = lava_results_ ? &*lava_results_ : nullptr;
        run.lava_key = lava_series_;
        run.lava_key.hz = hz;
        run.lava_key.patch = static_cast<int>(result.number);
        run.lava_key.patch_sha256 =
            lava_series_.series_sha256.empty() ? "" : file_sha256(result.path);
        DeviceRun ran = run_device_level(device, baseline, patched, run, one);
        if (ran.guest_build_dir.empty())
            guest_build_failures_[hz] = one.message;
        else
            report_.kernel_release = ran.guest_release;
        // Jobs written, nothing measured: no table, no chart.
        if (!lava_export_ && !ran.boots.empty())
            result.devices.push_back(std::move(ran));
    }
    // The first failure decides the level; passes accumulate in the message.
    if (level.status != LevelStatus::failed) {
        level.status = one.status;
        level.message = level.message.empty() || one.status == LevelStatus::failed
                            ? name + ": " + one.message
                            : level.message + "; " + name + ": " + one.message;
    }
    level.details.insert(level.details.end(), one.details.begin(), one.details.end());
}

void SeriesValidator::level_device(PatchResult& result, const std::vector<KbuildModule>& modules,
                                   const Snapshots& snaps) {
    LevelResult& level = result.levels[3];
    auto start = Clock::now();
    std::optional<device::DeviceRegistry> registry;
    try {
        registry = load_registry();
    } catch (const std::exception& e) {
        level.status = LevelStatus::failed;
        level.message = std::string("cannot read the device registry: ") + e.what();
        return;
    }
    std::vector<std::string> without_model;
    std::set<std::string> booted; // two modules of one device (st33zp24.c and i2c.c) boot once
    for (size_t i = 0; i < modules.size(); ++i) {
        const device::DeviceEntry* device =
            registry->for_module(modules[i].name, modules[i].directory);
        if (!device) {
            without_model.push_back(modules[i].name);
            continue;
        }
        if (i < result.modules.size() && result.modules[i].status == LevelStatus::failed) {
            level.status = LevelStatus::not_run;
            level.message = "L3 failed for " + modules[i].name;
            return;
        }
        if (!booted.insert(device->driver).second)
            continue;
        for (int hz : report_.guest_hz)
            for (device::InterruptMode wiring : interrupt_modes(*device, options_.interrupts))
                boot_device(result, *device, modules[i], snaps.baseline[i], snaps.patched[i], hz,
                            wiring);
    }
    level.seconds = seconds_since(start);
    if (booted.empty()) {
        level.status = LevelStatus::not_applicable;
        level.message =
            without_model.empty()
                ? "no driver touched"
                : "no device model for " + without_model.front() +
                      (without_model.size() > 1
                           ? " and " + std::to_string(without_model.size() - 1) + " more"
                           : "");
        for (const auto& name : without_model)
            level.details.push_back("no device model for " + name);
    }
}

} // namespace

ValidationReport run_validation(const ValidateOptions& options) {
    auto start = Clock::now();
    ValidationReport report;
    report.tool_version = std::string("ksweep ") + KSWEEP_VERSION;
    report.tree = fs::absolute(options.tree).lexically_normal().string();
    report.series = options.series_dir.empty() ? options.git_range : options.series_dir;
    report.levels = options.levels;
    report.boots = options.boots;
    report.extends = options.extends;
    report.profile = options.profile;
    report.started_at = utc_now();

    // L3 builds in the tree's own build dir: the caller's (the CLI resolves and says it), or
    // one found or prepared for the tree here — never another version's headers.
    report.headers_dir = options.headers_dir;
    report.build_dir_note = options.build_dir_note;
    std::string config_hz_label = options.config_hz_label;
    if (report.headers_dir.empty() && (wants(options, 3) || wants(options, 4))) {
        try {
            kbuild::BuildDirRequest request;
            request.tree = options.tree;
            request.cache_dir = options.cache_dir;
            request.on_progress = options.on_progress;
            kbuild::BuildDir build = kbuild::resolve_build_dir(request);
            report.headers_dir = build.dir;
            const kbuild::HzChoice hz = kbuild::choose_hz(0, build);
            report.build_dir_note = kbuild::describe(build, hz);
            config_hz_label = hz.label;
        } catch (const kbuild::BuildDirError& e) {
            report.errors.push_back(e.what());
            report.wall_seconds = seconds_since(start);
            return report;
        }
    }
    if (!report.headers_dir.empty())
        report.config_hz = read_config_hz(report.headers_dir).value_or(0);
    report.guest_hz = options.hz;
    report.guest_hz_source = "as given with --guest-hz";
    if (report.guest_hz.empty()) {
        report.guest_hz = {report.config_hz > 0 ? report.config_hz : 250};
        report.guest_hz_source = report.config_hz > 0 && !config_hz_label.empty()
                                     ? "the build dir's CONFIG_HZ: " + config_hz_label
                                 : report.config_hz > 0
                                     ? "the build dir's CONFIG_HZ"
                                     : "ksweep's default: no config states HZ (give --guest-hz)";
    }

    ValidateOptions effective = options;
    std::optional<TempDir> temporary_work; // without a work dir; removed unless --keep-work
    if (effective.work_dir.empty()) {
        try {
            effective.work_dir = temporary_work.emplace("ksweep-validate").path().string();
        } catch (const std::system_error& e) {
            report.errors.push_back(e.what());
            return report;
        }
        if (options.keep_work)
            temporary_work->release();
    } else {
        effective.keep_work = true; // the caller's directory: all of it stays
    }
    if (effective.keep_work)
        report.work_dir_kept = effective.work_dir;
    if (!fs::is_directory(options.tree)) {
        report.errors.push_back("tree '" + options.tree + "' is not a directory");
    } else if (options.series_dir.empty() == options.git_range.empty()) {
        report.errors.push_back("give exactly one of --series DIR or --git RANGE");
    } else {
        SeriesValidator(effective, report).run();
    }
    temporary_work.reset(); // removing it is part of the run's wall time
    report.wall_seconds = seconds_since(start);
    return report;
}

namespace {

// What the report says about paths, made shareable: the tree by its directory's name, the
// series relative to the report's folder, and every path in a message relative to the tree or
// that folder, or under $KSWEEP_CACHE: nothing of the machine that ran it.
struct ReportPaths {
    std::string tree, out, series, series_shown;

    ReportPaths(const ValidationReport& report, const std::string& dir)
        : tree(report.tree), out(fs::absolute(dir).lexically_normal().string()) {
        std::error_code ec;
        if (fs::is_directory(report.series, ec)) {
            series = fs::absolute(report.series).lexically_normal().string();
            series_shown = fs::path(series).lexically_relative(out).generic_string();
        }
    }

    ValidationReport shown(ValidationReport report) const {
        report.tree = tree_name(tree);
        if (!series_shown.empty())
            report.series = series_shown;
        return report;
    }

    std::string text(const std::string& rendered) const {
        std::vector<PathRoot> more{{out, ""}};
        if (!series.empty())
            more.push_back({series, series_shown + "/"});
        return shareable_text(rendered, tree, more);
    }
};

} // namespace

ReportFiles write_report_files(const ValidationReport& full, const std::string& dir) {
    const ReportPaths paths(full, dir);
    const ValidationReport report = paths.shown(full);
    ReportFiles files;
    fs::create_directories(dir);
    std::vector<std::string> chart_names;
    for (const auto& patch : report.patches)
        for (const auto& run : patch.devices) {
            if (run.baseline.summary.count == 0 && run.patched.summary.count == 0) {
                chart_names.push_back(""); // no extend ran: nothing to draw
                continue;
            }
            std::string wiring = run.interrupt.empty()      ? ""
                                 : run.interrupt == "wired" ? "-irq"
                                                            : "-noirq";
            std::string name = "patch-" + std::to_string(patch.number) + "-" + run.driver + "-hz" +
                               std::to_string(run.hz) + wiring + ".svg";
            std::string title = "Patch " + std::to_string(patch.number) + ", " + run.driver +
                                ", HZ=" + std::to_string(run.hz) + interrupt_suffix(run) + ": " +
                                run.command + " latency, baseline vs patched";
            fs::path svg = fs::path(dir) / name;
            std::ofstream(svg) << paths.text(render_latency_svg(run, title));
            files.charts.push_back(svg.string());
            chart_names.push_back(name);
            fs::path png = fs::path(svg).replace_extension(".png");
            try { // a picture for people without an SVG viewer; optional
                CommandResult r = run_command({"rsvg-convert", "-o", png.string(), svg.string()},
                                              "", std::chrono::seconds(60));
                if (r.status == 0)
                    files.pngs.push_back(png.string());
            } catch (const std::exception&) {
            }
        }
    files.markdown = (fs::path(dir) / "report.md").string();
    files.json = (fs::path(dir) / "report.json").string();
    std::ofstream(files.markdown) << paths.text(render_markdown(report, chart_names));
    std::ofstream(files.json) << paths.text(render_json(report));
    return files;
}

} // namespace ksweep::validate
