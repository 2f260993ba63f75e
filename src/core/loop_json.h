// A finding's loop as JSON, one writer for scan's JSON (docs/scan-json.md, "loop") and check's
// (each warning's "loop"): what ends the loop, its tries, what it waits for, its budget per HZ.
// A template over nlohmann's two object kinds: scan's sorted `Json`, check's `OrderedJson`.
#pragma once

#include "core/json.h"
#include "core/loop.h"

#include <string>
#include <utility>
#include <vector>

namespace ksweep {

// A string, or null when it is empty.
template <typename J> J string_or_null(const std::string& s) {
    return s.empty() ? J(nullptr) : J(s);
}

// {"100": 30, "250": 12, "1000": 3}: a figure at each common HZ, or null.
template <typename J> J by_hz_json(const std::vector<std::pair<int, double>>& by_hz) {
    if (by_hz.empty())
        return J(nullptr);
    J out = J::object();
    for (const auto& [hz, ms] : by_hz)
        out[std::to_string(hz)] = json_number<J>(ms);
    return out;
}

template <typename J> J loop_json(const LoopInfo& loop) {
    J waits = J(nullptr);
    if (loop.waits_for)
        waits = J{{"reader", string_or_null<J>(loop.waits_for->reader)},
                  {"call", string_or_null<J>(loop.waits_for->call)},
                  {"value", string_or_null<J>(loop.waits_for->value)},
                  {"condition", loop.waits_for->condition}};
    const bool in_loop = loop.ends_by != LoopEnd::None && loop.ends_by != LoopEnd::Unknown;
    return J{{"ends_by", std::string(to_string(loop.ends_by))},
             {"statement", in_loop ? J(loop.statement) : J(nullptr)},
             {"line", in_loop ? J(loop.line) : J(nullptr)},
             {"tries", loop.tries ? J(*loop.tries) : J(nullptr)},
             {"tries_text", string_or_null<J>(loop.tries_text)},
             {"counter", string_or_null<J>(loop.counter)},
             {"waits_for", std::move(waits)},
             {"budget_ms_by_hz", by_hz_json<J>(loop.budget_ms_by_hz)},
             {"iopoll_shape", loop.count_ended() ? J(loop.iopoll.has_value()) : J(nullptr)},
             {"not_iopoll", string_or_null<J>(loop.not_iopoll)},
             {"note", string_or_null<J>(loop.note)}};
}

} // namespace ksweep
