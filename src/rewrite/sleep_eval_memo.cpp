#include "rewrite/sleep_eval_memo.h"

#include "core/build_identity.h"
#include "core/cache_dir.h"
#include "core/file_io.h"
#include "core/json.h"
#include "core/sha256.h"
#include "rewrite/input_files.h"

#include <clang/Basic/Version.h>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

// The file's format; what an evaluation gives is keyed by the build (core/build_identity.h).
constexpr const char* kFormat = "ksweep sleep evaluations v1";

std::string call_key(const std::string& function, long long value) {
    return function + " " + std::to_string(value);
}

Json eval_json(const SleepEval& e) {
    Json step = nullptr;
    if (e.step)
        step = {{"primitive", e.step->primitive}, {"args", e.step->args}, {"at", e.step->at}};
    return {{"defined", e.defined}, {"step", step}, {"note", e.note}};
}

SleepEval eval_of(const Json& j) {
    SleepEval e;
    e.defined = j.at("defined").get<bool>();
    e.note = j.at("note").get<std::string>();
    if (const Json& s = j.at("step"); !s.is_null())
        e.step =
            SleepStep{s.at("primitive").get<std::string>(),
                      s.at("args").get<std::vector<long long>>(), s.at("at").get<std::string>()};
    return e;
}

} // namespace

std::string sleep_eval_cache_dir() {
    return cache_dir() + "/sleep-evals";
}

SleepEvalMemo::SleepEvalMemo(const std::string& dir, const std::string& parse_key) {
    if (dir.empty())
        return;
    const std::string key = to_hex(sha256(std::string(kFormat) + "\n" CLANG_VERSION_STRING "\n" +
                                          build_identity() + "\n" + parse_key))
                                .substr(0, 32);
    results_ = fs::path(dir) / (key + ".json");
    inputs_ = fs::path(dir) / (key + ".inputs");
    const auto text = read_file(results_);
    if (!text || !input_files_unchanged(inputs_))
        return;
    try {
        const Json j = Json::parse(*text);
        if (j.at("format") != kFormat)
            return;
        for (const auto& [call, eval] : j.at("calls").items())
            known_[call] = eval_of(eval);
        inputs_written_ = true; // the list that holds is this parse's
        std::error_code ec;     // its time is its last use (`ksweep cache`)
        fs::last_write_time(results_, fs::file_time_type::clock::now(), ec);
    } catch (const Json::exception&) {
        known_.clear(); // a torn or foreign file: evaluate again
    }
}

std::optional<SleepEval> SleepEvalMemo::find(const std::string& function, long long value) const {
    const auto it = known_.find(call_key(function, value));
    if (it == known_.end())
        return std::nullopt;
    return it->second;
}

void SleepEvalMemo::keep(const std::string& function, long long value, const SleepEval& eval,
                         const std::vector<std::string>& inputs, long long started_ns) {
    if (results_.empty() || inputs.empty())
        return;
    known_[call_key(function, value)] = eval;
    std::error_code ec;
    fs::create_directories(results_.parent_path(), ec);
    // The inputs first: results without their list are never trusted.
    if (!inputs_written_) {
        if (!write_input_files(inputs_, inputs, started_ns))
            return;
        inputs_written_ = true;
    }
    Json calls = Json::object();
    for (const auto& [call, e] : known_)
        calls[call] = eval_json(e);
    write_file_whole(results_, json_text(Json{{"format", kFormat}, {"calls", calls}}, -1));
}

} // namespace ksweep
