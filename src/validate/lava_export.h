// `ksweep validate --lava DIR`: instead of booting, every L4 boot becomes a LAVA job in
// DIR/jobs/, with the artifacts it needs (kernel, initramfs with tpm_extend and the modules of
// its variant, the device profile ksweep-tpmd serves) in DIR/artifacts/ under their sha256, and
// DIR/manifest.json listing both. The guest pieces come from the guest's own builders
// (guest::prepare_guest_run), exactly what a local boot would use.
#pragma once

#include "guest/qemu_runner.h"
#include "validate/lava_job.h"

#include <map>
#include <string>
#include <vector>

namespace ksweep::validate {

class LavaExport {
  public:
    // `artifacts_url`: the base URL the lab fetches DIR/artifacts/ from; "" = file:// in DIR.
    LavaExport(const std::string& dir, std::string artifacts_url);

    // Writes the job of one boot; `run` is what the local boot would have run.
    void add_boot(const LavaBootKey& key, const guest::GuestRunOptions& run);

    // DIR/manifest.json: every artifact (name, sha256, size, url) and every job (file, name,
    // metadata, the artifacts it uses). Returns its path.
    std::string write_manifest() const;

    size_t job_count() const { return jobs_.size(); }
    const std::string& dir() const { return dir_; }

  private:
    struct Artifact {
        std::string name, sha256, url;
        std::uintmax_t size = 0;
    };
    struct Job {
        std::string file;
        LavaBootKey key;
        std::vector<std::string> artifacts; // names
    };
    // Copies `path` into DIR/artifacts once per content and returns its entry.
    const Artifact& add_artifact(const std::string& path);

    std::string dir_, artifacts_url_;
    std::map<std::string, Artifact> artifacts_; // by name
    std::vector<Job> jobs_;
};

} // namespace ksweep::validate
