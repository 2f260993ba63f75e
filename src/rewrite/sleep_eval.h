// The tree's own sleep functions, evaluated rather than matched by their spelling: clang parses
// the tree's headers with the tree's flags at a given HZ (CONFIG_HZ set before delay.h), and a
// small interpreter runs a call for a value through the inline functions and macros it expands
// to until it reaches a sleep primitive (usleep_range, msleep, udelay), whose arguments clang's
// constant evaluator folds (int_eval.h). So fsleep(5000) is usleep_range(5000, 6250) at HZ=250
// and msleep(5) at HZ=1000 on a v6.13 tree, whether its slack is written `>> 2` or
// `>> max_slack_shift`; read_poll_timeout()'s sleep of 3000 us is usleep_range(751, 3000); and
// tpm_msleep(5) is what tpm.h makes of it.
#pragma once

#include "kbuild/sleep_api.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ksweep {

// The sleep primitive a call reaches, with its arguments' values.
struct SleepStep {
    std::string primitive;       // "usleep_range", "usleep_range_state", "msleep", "udelay", ...
    std::vector<long long> args; // the values of its arguments (an unknown one stops the run)
    std::string at;              // "include/linux/delay.h:86": where the tree calls it

    // The longest it sleeps, in ms: an hrtimer range its maximum, msleep() the sleep model at
    // `hz` (with msleep()'s extra jiffy where the tree has it); nullopt for a busy-wait.
    std::optional<double> max_ms(int hz, bool extra_jiffy) const;
    std::string text() const; // "usleep_range(5000, 6250)"
};

struct SleepEval {
    bool defined = false; // the tree has the function (or macro) at all
    std::optional<SleepStep> step;
    std::string note; // no step: why (one line)
};

// What target auto needs to know of fsleep(): its kind, where that was read, or why not.
struct FsleepRead {
    kbuild::FsleepKind kind = kbuild::FsleepKind::Unknown;
    std::string source; // "include/linux/delay.h:86": the usleep_range() its short sleeps reach
    std::string note;
};

class TreeSleeps {
  public:
    // `memo_dir`: where evaluations are kept between runs (sleep_eval_memo.h); "" keeps none.
    TreeSleeps(std::string tree, std::string build_dir, std::string memo_dir = "");
    ~TreeSleeps();
    TreeSleeps(const TreeSleeps&) = delete;
    TreeSleeps& operator=(const TreeSleeps&) = delete;

    // fsleep(us) at `hz`.
    SleepEval fsleep(long long us, int hz);
    // One try's sleep of read_poll_timeout() with `sleep_us` (include/linux/iopoll.h).
    SleepEval iopoll_sleep(long long sleep_us, int hz);
    // `name(value)`, a helper defined in the tree-relative header `header` (tpm_msleep in
    // drivers/char/tpm/tpm.h).
    SleepEval helper(const std::string& header, const std::string& name, long long value, int hz);

    // fsleep() evaluated at HZ 100, 250 and 1000 for sleeps from 20 us to 19 ms: a quarter
    // of slack at most (v6.13 on), twice the sleep (v5.8 to v6.12), absent, or unknown.
    FsleepRead read_fsleep();

    bool extra_jiffy() const { return extra_jiffy_; }
    // How many times the tree's headers were parsed (none when every answer was kept).
    int parses_made() const;
    // Whether the tree-relative header defines the function-like macro (the iopoll helpers a
    // rewrite may call: read_poll_timeout came with v5.8).
    bool defines(const std::string& header, const std::string& macro) const;

  private:
    struct Parse;
    struct Probe;
    SleepEval evaluate(const std::string& probe_path, const std::string& code, int hz,
                       const std::string& function, long long value, const std::string& missing);
    Parse& parse(Probe& probe);
    SleepEval run(Parse& parse, const std::string& function, long long value,
                  const std::string& missing);

    struct State;
    std::unique_ptr<State> state_;
    bool extra_jiffy_ = true;
};

// The process's evaluator for a tree and build dir (each parse is made once and kept, its
// evaluations kept in the cache's sleep-evals/ for the next run).
TreeSleeps& tree_sleeps(const std::string& tree, const std::string& build_dir);

// kbuild::read_sleep_api() with fsleep() read by evaluation.
kbuild::SleepApi evaluated_sleep_api(const std::string& tree, const std::string& build_dir);

} // namespace ksweep
