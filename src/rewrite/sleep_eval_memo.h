// The tree's sleep functions' evaluations (sleep_eval.h) kept in the cache, so that the gate
// does not parse delay.h at three HZ on every run: one file per probe parse, keyed by everything
// the parse is given (clang's version, the compiler arguments, the probe's path and text, HZ)
// and by the ksweep build (core/build_identity.h); valid while every header that parse read has
// the same content (input_files.h); holding each call evaluated on it ("fsleep 5000": the sleep
// it reaches, or why none). Only a parse that succeeded keeps anything: a failed one may have
// failed on a header not yet generated.
#pragma once

#include "rewrite/sleep_eval.h"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ksweep {

// <cache>/sleep-evals: where the process's evaluators (tree_sleeps()) keep them.
std::string sleep_eval_cache_dir();

class SleepEvalMemo {
  public:
    // The evaluations kept in `dir` for the parse described by `parse_key` (every input of
    // the parse, as text); `dir` "" keeps nothing.
    SleepEvalMemo(const std::string& dir, const std::string& parse_key);

    std::optional<SleepEval> find(const std::string& function, long long value) const;

    // Keeps `eval` of `function(value)`. `inputs`: every header the parse read; `started_ns`:
    // when the parse began (input_files.h).
    void keep(const std::string& function, long long value, const SleepEval& eval,
              const std::vector<std::string>& inputs, long long started_ns);

  private:
    std::filesystem::path results_, inputs_;
    std::map<std::string, SleepEval> known_;
    bool inputs_written_ = false;
};

} // namespace ksweep
