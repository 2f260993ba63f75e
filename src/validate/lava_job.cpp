#include "validate/lava_job.h"

#include "core/file_io.h"
#include "core/sha256.h"
#include "device/stats_device.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

namespace ksweep::validate {

std::string LavaBootKey::job_name() const {
    return "ksweep-" + series + "-p" + std::to_string(patch) + "-" + device + "-hz" +
           std::to_string(hz) + "-" + variant + "-b" + std::to_string(boot);
}

std::map<std::string, std::string> LavaBootKey::metadata() const {
    std::map<std::string, std::string> m = {{"ksweep.version", version},
                                            {"ksweep.series", series},
                                            {"ksweep.series_sha256", series_sha256},
                                            {"ksweep.patch", std::to_string(patch)},
                                            {"ksweep.patch_sha256", patch_sha256},
                                            {"ksweep.device", device},
                                            {"ksweep.variant", variant},
                                            {"ksweep.boot", std::to_string(boot)},
                                            {"ksweep.hz", std::to_string(hz)},
                                            {"ksweep.extends", std::to_string(extends)}};
    // A device file's boot times its operation; a TPM's extends and checks a PCR bank.
    if (!operation.empty()) {
        m["ksweep.operation"] = operation;
    } else {
        m["ksweep.tpm"] = tpm;
        m["ksweep.pcr_bank"] = pcr_bank;
    }
    return m;
}

LavaBootKey LavaBootKey::from_metadata(const std::map<std::string, std::string>& metadata) {
    auto text = [&](const std::string& name) {
        auto it = metadata.find("ksweep." + name);
        if (it == metadata.end() || it->second.empty())
            throw std::runtime_error("job metadata has no ksweep." + name);
        return it->second;
    };
    auto number = [&](const std::string& name) {
        std::string value = text(name);
        if (value.find_first_not_of("0123456789") != std::string::npos || value.size() > 9)
            throw std::runtime_error("job metadata ksweep." + name + " is not a number: " + value);
        return std::stoi(value);
    };
    LavaBootKey key;
    key.version = text("version");
    key.series = text("series");
    key.series_sha256 = text("series_sha256");
    key.patch = number("patch");
    key.patch_sha256 = text("patch_sha256");
    key.device = text("device");
    key.variant = text("variant");
    if (key.variant != "baseline" && key.variant != "patched")
        throw std::runtime_error("job metadata ksweep.variant is neither baseline nor patched: " +
                                 key.variant);
    key.boot = number("boot");
    key.hz = number("hz");
    key.extends = static_cast<std::uint32_t>(number("extends"));
    if (metadata.count("ksweep.operation")) { // a device file's job: no TPM
        key.operation = text("operation");
        key.tpm.clear();
        return key;
    }
    key.tpm = text("tpm");
    key.pcr_bank = text("pcr_bank");
    return key;
}

std::string lava_series_sha256(const std::string& series_dir) {
    std::vector<fs::path> patches;
    for (const auto& entry : fs::directory_iterator(series_dir))
        if (entry.path().extension() == ".patch")
            patches.push_back(entry.path());
    std::sort(patches.begin(), patches.end());
    Sha256 hash;
    for (const auto& patch : patches) {
        auto content = read_file(patch);
        if (!content)
            throw std::runtime_error("cannot read " + patch.string());
        hash.update(patch.filename().string());
        hash.update(sha256(*content));
    }
    return to_hex(hash.finish());
}

std::string lava_tpmd_command(const std::string& device) {
    return "ksweep_tpmd_" + device;
}

std::string lava_case_value(const std::string& value) {
    std::string out = value;
    std::replace(out.begin(), out.end(), ':', '.');
    return out;
}

namespace {

// The back end's counters (stats_device.h), one test case each.
std::string counters_step() {
    char address[8];
    std::snprintf(address, sizeof address, "0x%02x", device::kStatsAddress);
    return std::string("ksweep_op stats ") + address +
           " > /tmp/ksweep-stats.log 2>&1; sed -n 's/^ksweep-op: stats //p' "
           "/tmp/ksweep-stats.log | tr ' ' '\\n' | while IFS== read k v; do [ -n \"$v\" ] && "
           "lava-test-case device-$k --result pass --measurement $v; done; cat "
           "/tmp/ksweep-stats.log";
}

std::vector<std::string> operation_steps() {
    // The operation init.sh wrote, each record a test case: op-<i> with its time in us (three
    // decimals: the nanoseconds come back exactly), value-<i>-<what it read>.
    const char* run = "ksweep-operation > /tmp/ksweep-op.log 2>&1; echo \"status=$?\" >> "
                      "/tmp/ksweep-op.log";
    const char* records =
        "sed -n 's/^ksweep-op: op i=\\([0-9]*\\) ns=\\([0-9]*\\) rc=0x\\([0-9a-f]*\\) "
        "value=\\(.*\\)$/\\1 \\2 \\3 \\4/p' /tmp/ksweep-op.log | while read i ns rc v; do r=pass; "
        "[ \"$rc\" = 0 ] || r=fail; lava-test-case op-$i --result $r --measurement $((ns / "
        "1000)).$(printf %03d $((ns % 1000))) --units us; lava-test-case value-$i-$(echo \"$v\" "
        "| tr : .) --result pass; done";
    const char* status = "grep -q '^status=0$' /tmp/ksweep-op.log && r=pass || r=fail; "
                         "lava-test-case ksweep_op --result $r";
    return {run, records, status, "grep -v '^ksweep-op: op ' /tmp/ksweep-op.log", counters_step()};
}

} // namespace

std::vector<std::string> lava_test_steps(const LavaBootKey& key) {
    if (!key.operation.empty())
        return operation_steps();
    // busybox sh in the guest: no bash, no awk needed; ns -> us with three decimals, so the
    // reader gets the nanoseconds back exactly.
    return {
        "tpm_extend --tpm " + key.tpm + " " + std::to_string(key.extends) +
            " /dev/tpm0 > /tmp/ksweep-extend.log 2>&1; echo \"status=$?\" >> "
            "/tmp/ksweep-extend.log",
        // NOLINTNEXTLINE(bugprone-suspicious-missing-comma): one shell line, split for width
        "sed -n 's/^ksweep-extend: extend i=\\([0-9]*\\) ns=\\([0-9]*\\) rc=0x\\([0-9a-f]*\\)$/\\1 "
        "\\2 \\3/p' /tmp/ksweep-extend.log | while read i ns rc; do r=pass; [ \"$rc\" = 0 ] || "
        "r=fail; lava-test-case extend-$i --result $r --measurement $((ns / 1000)).$(printf %03d "
        "$((ns % 1000))) --units us; done",
        "sed -n 's/^ksweep-extend: \\(pcr16-[a-z]*\\) \\([0-9a-f]*\\)$/\\1-\\2/p' "
        "/tmp/ksweep-extend.log | while read c; do lava-test-case $c --result pass; done",
        "grep -q '^status=0$' /tmp/ksweep-extend.log && r=pass || r=fail; lava-test-case "
        "tpm_extend --result $r",
        "grep -v '^ksweep-extend: extend ' /tmp/ksweep-extend.log", counters_step()};
}

namespace {

void emit_timeout(YAML::Emitter& out, int minutes) {
    out << YAML::BeginMap << YAML::Key << "minutes" << YAML::Value << minutes << YAML::EndMap;
}

void emit_image(YAML::Emitter& out, const std::string& name, const LavaImage& image,
                const std::string& image_arg) {
    out << YAML::Key << name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "url" << YAML::Value << image.url;
    // Quoted: a digest of digits only (or "1e5...") would otherwise read as a number.
    out << YAML::Key << "sha256sum" << YAML::Value << YAML::DoubleQuoted << image.sha256;
    if (!image_arg.empty())
        out << YAML::Key << "image_arg" << YAML::Value << image_arg;
    if (name == "ramdisk") {
        // LAVA unpacks the cpio, adds its test overlay (lava-test-shell) and packs it again.
        out << YAML::Key << "compression" << YAML::Value << "gz";
        out << YAML::Key << "format" << YAML::Value << "cpio.newc";
        out << YAML::Key << "overlays" << YAML::Value << YAML::BeginMap << YAML::Key << "lava"
            << YAML::Value << true << YAML::EndMap;
    }
    out << YAML::EndMap;
}

} // namespace

std::string lava_job_yaml(const LavaJob& job) {
    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "job_name" << YAML::Value << job.key.job_name();
    out << YAML::Key << "device_type" << YAML::Value << job.device_type;
    out << YAML::Key << "visibility" << YAML::Value << "public";
    out << YAML::Key << "priority" << YAML::Value << "medium";
    out << YAML::Key << "timeouts" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "job" << YAML::Value;
    emit_timeout(out, job.timeout_minutes);
    out << YAML::Key << "action" << YAML::Value;
    emit_timeout(out, job.timeout_minutes);
    out << YAML::EndMap;
    out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    for (const auto& [name, value] : job.key.metadata())
        out << YAML::Key << name << YAML::Value << YAML::DoubleQuoted << value;
    out << YAML::EndMap;
    const bool qemu = job.device_type == "qemu";
    if (!qemu) {
        // A board's boot method (grub, ipxe...) appends these to the lab's kernel command line.
        out << YAML::Key << "context" << YAML::Value << YAML::BeginMap << YAML::Key
            << "extra_kernel_args" << YAML::Value << job.kernel_args << YAML::EndMap;
    } else {
        out << YAML::Key << "context" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "arch" << YAML::Value << "amd64";
        out << YAML::Key << "no_kvm" << YAML::Value << true;
        out << YAML::Key << "memory" << YAML::Value << job.memory_mb;
        out << YAML::Key << "extra_options" << YAML::Value << YAML::BeginSeq;
        // QEMU takes "-option value"; LAVA joins the list with spaces.
        for (size_t i = 0; i < job.extra_options.size(); i += 2)
            out << job.extra_options[i] + " " + job.extra_options[i + 1];
        out << YAML::EndSeq << YAML::EndMap;
    }

    out << YAML::Key << "actions" << YAML::Value << YAML::BeginSeq;
    out << YAML::BeginMap << YAML::Key << "deploy" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "to" << YAML::Value << "tmpfs";
    out << YAML::Key << "timeout" << YAML::Value;
    emit_timeout(out, 5);
    out << YAML::Key << "images" << YAML::Value << YAML::BeginMap;
    // QEMU's tmpfs boot takes the kernel command line only from the kernel's image_arg.
    emit_image(out, "kernel", job.kernel,
               qemu ? "-kernel {kernel} -append \"console=ttyS0 panic=-1 " + job.kernel_args + "\""
                    : "");
    emit_image(out, "ramdisk", job.ramdisk, qemu ? "-initrd {ramdisk}" : "");
    out << YAML::EndMap << YAML::EndMap << YAML::EndMap;

    if (!job.tpmd_command.empty()) {
        out << YAML::BeginMap << YAML::Key << "command" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "name" << YAML::Value << job.tpmd_command;
        out << YAML::Key << "timeout" << YAML::Value;
        emit_timeout(out, 1);
        out << YAML::EndMap << YAML::EndMap;
    }

    out << YAML::BeginMap << YAML::Key << "boot" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "method" << YAML::Value << "qemu";
    out << YAML::Key << "media" << YAML::Value << "tmpfs";
    out << YAML::Key << "timeout" << YAML::Value;
    emit_timeout(out, 5);
    // qemu/init.sh with ksweep.lava=1 stops at busybox sh once /dev/tpm0 is there.
    out << YAML::Key << "prompts" << YAML::Value << YAML::BeginSeq << "/ # " << YAML::EndSeq;
    out << YAML::EndMap << YAML::EndMap;

    out << YAML::BeginMap << YAML::Key << "test" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "timeout" << YAML::Value;
    emit_timeout(out, job.timeout_minutes);
    out << YAML::Key << "definitions" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
    out << YAML::Key << "from" << YAML::Value << "inline";
    out << YAML::Key << "name" << YAML::Value << "ksweep-extend";
    out << YAML::Key << "path" << YAML::Value << "inline/ksweep-extend.yaml";
    out << YAML::Key << "repository" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "format" << YAML::Value << "Lava-Test Test Definition 1.0";
    out << YAML::Key << "name" << YAML::Value << "ksweep-extend";
    out << YAML::Key << "description" << YAML::Value
        << "ksweep L4: time TPM PCR extends through /dev/tpm0 and report PCR 16";
    out << YAML::EndMap;
    out << YAML::Key << "run" << YAML::Value << YAML::BeginMap << YAML::Key << "steps"
        << YAML::Value << YAML::BeginSeq;
    for (const auto& step : lava_test_steps(job.key))
        out << step;
    out << YAML::EndSeq << YAML::EndMap;
    out << YAML::EndMap << YAML::EndMap << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
    out << YAML::EndSeq << YAML::EndMap;
    return std::string(out.c_str()) + "\n";
}

} // namespace ksweep::validate
