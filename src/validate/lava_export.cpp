#include "validate/lava_export.h"

#include "core/file_io.h"
#include "core/sha256.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep::validate {

LavaExport::LavaExport(const std::string& dir, std::string artifacts_url)
    : dir_(fs::absolute(dir).lexically_normal().string()),
      artifacts_url_(std::move(artifacts_url)) {
    if (artifacts_url_.empty())
        artifacts_url_ = "file://" + dir_ + "/artifacts";
    while (!artifacts_url_.empty() && artifacts_url_.back() == '/')
        artifacts_url_.pop_back();
    fs::create_directories(fs::path(dir_) / "jobs");
    fs::create_directories(fs::path(dir_) / "artifacts");
}

const LavaExport::Artifact& LavaExport::add_artifact(const std::string& path) {
    auto content = read_file(path);
    if (!content)
        throw std::runtime_error("cannot read the artifact " + path);
    std::string hex = to_hex(sha256(*content));
    // Named by content: the baseline's initramfs of every boot is one file, and a lab's cache
    // never confuses two builds of the same name.
    std::string name = hex.substr(0, 16) + "-" + fs::path(path).filename().string();
    auto [it, added] = artifacts_.try_emplace(name);
    if (added) {
        std::ofstream(fs::path(dir_) / "artifacts" / name, std::ios::binary) << *content;
        it->second = {name, hex, artifacts_url_ + "/" + name, content->size()};
    }
    return it->second;
}

void LavaExport::add_boot(const LavaBootKey& key, const guest::GuestRunOptions& run) {
    LavaJob job;
    job.key = key;
    const Artifact& kernel = add_artifact(run.kernel_image);
    const Artifact& ramdisk = add_artifact(run.initramfs);
    const Artifact& profile = add_artifact(run.profile);
    job.kernel = {kernel.url, kernel.sha256};
    job.ramdisk = {ramdisk.url, ramdisk.sha256};
    job.kernel_args = guest::guest_kernel_args(run.device, run.extends) + " ksweep.lava=1";
    job.memory_mb = run.memory_mb;
    // The socket is the one the device dictionary's command makes ksweep-tpmd listen on.
    job.extra_options = guest::guest_clock_args();
    for (auto& arg :
         guest::vhost_user_i2c_args(run.memory_mb, "/run/ksweep/" + key.device + ".sock"))
        job.extra_options.push_back(std::move(arg));
    job.tpmd_command = lava_tpmd_command(key.device);
    job.timeout_minutes = static_cast<int>(10 + run.extends / 100);

    std::string file = "jobs/" + key.job_name() + ".yaml";
    std::ofstream(fs::path(dir_) / file) << lava_job_yaml(job);
    jobs_.push_back({file, key, {kernel.name, ramdisk.name, profile.name}});
}

std::string LavaExport::write_manifest() const {
    nlohmann::ordered_json manifest{{"format", "ksweep-lava-manifest"},
                                    {"format_version", 1},
                                    {"artifacts", nlohmann::ordered_json::array()},
                                    {"jobs", nlohmann::ordered_json::array()}};
    for (const auto& [name, a] : artifacts_)
        manifest["artifacts"].push_back(
            {{"name", a.name}, {"sha256", a.sha256}, {"size", a.size}, {"url", a.url}});
    for (const auto& job : jobs_)
        manifest["jobs"].push_back({{"file", job.file},
                                    {"name", job.key.job_name()},
                                    {"metadata", job.key.metadata()},
                                    {"artifacts", job.artifacts}});
    std::string path = (fs::path(dir_) / "manifest.json").string();
    std::ofstream(path) << manifest.dump(2) << "\n";
    return path;
}

} // namespace ksweep::validate
