#include "guest/guest_benchmark.h"

#include "core/cache_dir.h"
#include "core/data_dir.h"
#include "guest/driver_modules.h"
#include "guest/guest_initramfs.h"
#include "guest/module_deps.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace ksweep::guest {

namespace {

std::map<std::string, std::string> read_env_file(const fs::path& path) {
    std::map<std::string, std::string> values;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
        if (size_t eq = line.find('='); eq != std::string::npos && line[0] != '#')
            values[line.substr(0, eq)] = line.substr(eq + 1);
    return values;
}

std::string from_env_or_file(const char* name, const std::map<std::string, std::string>& file) {
    if (const char* v = std::getenv(name); v && *v)
        return v;
    auto it = file.find(name);
    return it == file.end() ? "" : it->second;
}

} // namespace

GuestEnvironment GuestEnvironment::load() {
    GuestEnvironment env;
    env.cache_dir = ksweep::cache_dir();
    auto file = read_env_file(fs::path(env.cache_dir) / "env");
    env.tree = from_env_or_file("KSWEEP_TREE_6_1", file);
    env.headers_dir = from_env_or_file("KSWEEP_HEADERS", file);
    for (const auto& [value, name] :
         {std::pair{env.tree, "KSWEEP_TREE_6_1"}, std::pair{env.headers_dir, "KSWEEP_HEADERS"}})
        if (value.empty())
            throw std::runtime_error(std::string(name) + " is not set and not in " + env.cache_dir +
                                     "/env: run scripts/setup.sh first");
    return env;
}

std::string registry_path() {
    return data_file("qemu/devices.yaml");
}

device::DeviceRegistry load_registry() {
    return device::load_device_registry(registry_path());
}

std::string tpmd_executable() {
    return KSWEEP_TPMD_PATH;
}

std::string extend_executable() {
    return KSWEEP_TPM_EXTEND_PATH;
}

std::string op_executable() {
    return KSWEEP_OP_PATH;
}

std::optional<GuestRunOptions> prepare_guest_run(const GuestBenchmarkOptions& options,
                                                 GuestBenchmarkResult& result) {
    auto progress = [&](const std::string& text) {
        if (options.on_progress)
            options.on_progress(text);
    };
    try {
        GuestEnvironment env = GuestEnvironment::load();
        std::string modules_cache = env.cache_dir + "/modules";
        device::DeviceRegistry registry = load_registry();
        const device::DeviceEntry* entry = registry.find(options.device);
        if (!entry) {
            result.error = "no device '" + options.device + "' in " + registry_path();
            return std::nullopt;
        }
        result.device = *entry;
        result.interrupt = options.interrupt.value_or(entry->interrupt);
        if (result.interrupt != device::InterruptMode::none &&
            entry->interrupt == device::InterruptMode::none) {
            result.error = options.device + " has no interrupt line to wire (" +
                           entry->source_path + " has no bind.interrupt)";
            return std::nullopt;
        }

        const std::string tree = options.tree.empty() ? env.tree : options.tree;
        result.guest = build_guest_kernel({tree, options.hz, "", env.cache_dir, progress});

        progress("building the driver under test");
        ModuleBuildRequest driver =
            driver_build_request(*entry, options.driver_root.empty() ? tree : options.driver_root,
                                 options.driver_source);
        driver.include_dirs.insert(driver.include_dirs.begin(), options.driver_include_dirs.begin(),
                                   options.driver_include_dirs.end());
        // Against the guest's own build: its Module.symvers, its vermagic.
        driver.headers_dir = result.guest.dir;
        driver.cache_dir = modules_cache;
        result.driver_sources = driver.sources;
        result.driver_build = build_modules(driver);
        if (!result.driver_build.ok) {
            std::string what =
                options.driver_source.empty() ? entry->driver : options.driver_source;
            result.error = "building " + what + " failed:\n" + result.driver_build.error +
                           "\n  log: " + result.driver_build.log_path;
            return std::nullopt;
        }

        InitramfsContents contents;
        if (result.interrupt == device::InterruptMode::wired) {
            progress("building the bind module");
            ModuleBuildResult bind =
                build_modules({{KSWEEP_SOURCE_DIR "/qemu/bind/ksweep_i2c_bind.c"},
                               {},
                               result.guest.dir,
                               modules_cache});
            if (!bind.ok) {
                result.error = "building the guest's bind module (qemu/bind/) failed:\n" +
                               bind.error + "\n  log: " + bind.log_path;
                return std::nullopt;
            }
            contents.bind_module = bind.modules.front();
        }

        progress("assembling the initramfs");
        contents.init_script = KSWEEP_SOURCE_DIR "/qemu/init.sh";
        contents.extend_program = extend_executable();
        contents.op_program = op_executable();
        // virtio-pci and i2c-virtio are built into the guest kernel (qemu/guest.config): the
        // modules under test are loaded, after the guest kernel's modules they need.
        contents.modules = guest_module_dependencies(result.driver_build.modules, result.guest.dir);
        contents.modules.insert(contents.modules.end(), result.driver_build.modules.begin(),
                                result.driver_build.modules.end());

        GuestRunOptions run;
        run.initramfs = build_initramfs(contents, env.cache_dir + "/initramfs");
        run.kernel_image = result.guest.vmlinux;
        run.tpmd = tpmd_executable();
        run.registry = registry_path();
        run.device = *entry;
        run.interrupt = result.interrupt;
        run.profile = options.profile.empty() ? entry->profile : options.profile;
        run.extends = options.extends;
        // Boot ~10 s under TCG; a historical driver at HZ=250 needs tens of ms per extend.
        run.timeout = options.timeout.count() > 0 ? options.timeout
                                                  : std::chrono::seconds(90 + options.extends / 4);
        run.run_dir = options.run_dir;
        run.trace = options.trace;
        run.on_progress = options.on_progress;
        return run;
    } catch (const GuestBuildError& e) {
        result.error = e.what();
        result.guest_build_failed = true;
        return std::nullopt;
    } catch (const std::exception& e) {
        result.error = e.what();
        return std::nullopt;
    }
}

GuestBenchmarkResult run_guest_benchmark(const GuestBenchmarkOptions& options) {
    GuestBenchmarkResult result;
    std::optional<GuestRunOptions> run = prepare_guest_run(options, result);
    if (!run)
        return result;
    result.run = run_guest(*run);
    result.summary = summarize(result.run.report.samples);
    result.ok = result.run.outcome == GuestOutcome::passed;
    return result;
}

} // namespace ksweep::guest
