// The tree's own millisecond sleep: a function the file can see that sleeps its parameter in
// milliseconds with an hrtimer (usleep_range or fsleep of param * 1000), such as
// drivers/char/tpm's tpm_msleep(). A subsystem that has one writes `tpm_msleep(TPM_TIMEOUT)`
// where others write usleep_range() with a slack constant, and its reviewers expect the same.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ksweep {

struct SleepHelper {
    std::string name;       // "tpm_msleep"
    std::string defined_at; // "drivers/char/tpm/tpm.h:260"
};

// The text of a tree-relative file, nullopt when there is none.
using ReadTreeFile = std::function<std::optional<std::string>(const std::string& rel_path)>;

// The first of `names` that the file at `path` (with `text`) defines or includes from a header
// of its own ("tpm.h", "../tpm.h": quote includes, resolved from the file's directory) and
// whose body is such a sleep. nullopt when none is: the caller falls back to the rule's target.
std::optional<SleepHelper> find_sleep_helper(const std::vector<std::string>& names,
                                             const std::string& path, const std::string& text,
                                             const ReadTreeFile& read);

} // namespace ksweep
