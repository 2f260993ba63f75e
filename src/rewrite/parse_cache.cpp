#include "rewrite/parse_cache.h"

#include "core/build_identity.h"
#include "core/cache_dir.h"
#include "core/file_io.h"
#include "core/json.h"
#include "core/sha256.h"
#include "rewrite/input_files.h"
#include "rewrite/missing_header.h"

#include <algorithm>
#include <clang/Basic/Version.h>
#include <filesystem>
#include <regex>
#include <stdexcept>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

// Every field of a site, its loop, an expansion and another sleep is kept: one added to them
// must be added here too (and kFormat raised), or results served from the cache would lack it —
// a site without its loop would let fix shorten a driver's timeout unawares.
static_assert(sizeof(SemanticSite) == 776 && sizeof(SemanticExpansion) == 152 &&
                  sizeof(OtherSleep) == 768 && sizeof(LoopInfo) == 640 && sizeof(LoopWait) == 128 &&
                  sizeof(IopollShape) == 280,
              "a field was added to a parse's results: keep it in parse_cache.cpp");
constexpr const char* kFormat = "ksweep parse results v4";

std::string key_of(const SemanticRequest& r) {
    Sha256 hash;
    hash.update(std::string(kFormat) + "\n" CLANG_VERSION_STRING "\n" + build_identity() + "\n" +
                r.abs_path + "\n");
    for (const std::string& a : r.args)
        hash.update(a + "\n");
    hash.update(to_hex(sha256(*r.content)) + "\n");
    for (const std::string& f : r.functions)
        hash.update("function " + f + "\n");
    for (const auto& [callee, through] : r.forms)
        hash.update("form " + callee + " " + through + "\n");
    for (unsigned c : r.call_offsets)
        hash.update("call " + std::to_string(c) + "\n");
    for (const auto& [open, close] : r.blocks)
        hash.update("block " + std::to_string(open) + " " + std::to_string(close) + "\n");
    for (const auto& [at, name] : r.single_names)
        hash.update("name " + std::to_string(at) + " " + name + "\n");
    hash.update(r.expansions ? "expansions\n" : "calls\n");
    for (const std::string& o : r.other_sleeps)
        hash.update("other " + o + "\n");
    return to_hex(hash.finish()).substr(0, 32);
}

fs::path entry_of(const SemanticRequest& r, const char* suffix) {
    const std::string key = key_of(r);
    return fs::path(r.result_dir) / key.substr(0, 2) / (key + suffix);
}

Json value_json(const std::optional<long long>& v) {
    return v ? Json(*v) : Json(nullptr);
}

std::optional<long long> value_of(const Json& j) {
    return j.is_null() ? std::nullopt : std::optional<long long>(j.get<long long>());
}

// A value that must be one of `count` enumerators: anything else is a foreign file.
template <typename E> E enum_of(const Json& j, int count) {
    const int v = j.get<int>();
    if (v < 0 || v >= count)
        throw std::out_of_range("enumerator out of range");
    return static_cast<E>(v);
}

Json offsets_json(const std::vector<std::pair<unsigned, unsigned>>& ranges) {
    Json out = Json::array();
    for (const auto& [begin, end] : ranges)
        out.push_back({begin, end});
    return out;
}

Json iopoll_json(const IopollShape& p) {
    return {{"loop_begin", p.loop_begin},
            {"loop_end", p.loop_end},
            {"exit", static_cast<int>(p.exit)},
            {"success", p.success},
            {"test_begin", p.test_begin},
            {"test_end", p.test_end},
            {"op", p.op},
            {"args", p.args},
            {"value", p.value},
            {"condition", p.condition},
            {"sleep_first", p.sleep_first},
            {"status", p.status},
            {"declaration", p.declaration},
            {"declare_at", p.declare_at},
            {"declaration_alone", p.declaration_alone},
            {"removals", offsets_json(p.removals)}};
}

IopollShape iopoll_of(const Json& j) {
    IopollShape p;
    p.loop_begin = j.at("loop_begin").get<unsigned>();
    p.loop_end = j.at("loop_end").get<unsigned>();
    p.exit = enum_of<IopollShape::Exit>(j.at("exit"), 2);
    p.success = j.at("success").get<std::string>();
    p.test_begin = j.at("test_begin").get<unsigned>();
    p.test_end = j.at("test_end").get<unsigned>();
    p.op = j.at("op").get<std::string>();
    p.args = j.at("args").get<std::vector<std::string>>();
    p.value = j.at("value").get<std::string>();
    p.condition = j.at("condition").get<std::string>();
    p.sleep_first = j.at("sleep_first").get<bool>();
    p.status = j.at("status").get<std::string>();
    p.declaration = j.at("declaration").get<std::string>();
    p.declare_at = j.at("declare_at").get<unsigned>();
    p.declaration_alone = j.at("declaration_alone").get<bool>();
    for (const Json& r : j.at("removals"))
        p.removals.emplace_back(r.at(0).get<unsigned>(), r.at(1).get<unsigned>());
    return p;
}

Json loop_json(const LoopInfo& l) {
    Json budgets = Json::array();
    for (const auto& [hz, ms] : l.budget_ms_by_hz)
        budgets.push_back({hz, ms});
    Json waits = nullptr;
    if (l.waits_for)
        waits = {{"reader", l.waits_for->reader},
                 {"call", l.waits_for->call},
                 {"value", l.waits_for->value},
                 {"condition", l.waits_for->condition}};
    return {{"ends_by", static_cast<int>(l.ends_by)},
            {"statement", l.statement},
            {"line", l.line},
            {"tries", value_json(l.tries)},
            {"tries_text", l.tries_text},
            {"counter", l.counter},
            {"waits_for", waits},
            {"note", l.note},
            {"iopoll", l.iopoll ? iopoll_json(*l.iopoll) : Json(nullptr)},
            {"not_iopoll", l.not_iopoll},
            {"budget_ms_by_hz", budgets}};
}

LoopInfo loop_of(const Json& j) {
    LoopInfo l;
    l.ends_by = enum_of<LoopEnd>(j.at("ends_by"), static_cast<int>(LoopEnd::Condition) + 1);
    l.statement = j.at("statement").get<std::string>();
    l.line = j.at("line").get<unsigned>();
    l.tries = value_of(j.at("tries"));
    l.tries_text = j.at("tries_text").get<std::string>();
    l.counter = j.at("counter").get<std::string>();
    if (const Json& w = j.at("waits_for"); !w.is_null())
        l.waits_for =
            LoopWait{w.at("reader").get<std::string>(), w.at("call").get<std::string>(),
                     w.at("value").get<std::string>(), w.at("condition").get<std::string>()};
    l.note = j.at("note").get<std::string>();
    if (const Json& p = j.at("iopoll"); !p.is_null())
        l.iopoll = iopoll_of(p);
    l.not_iopoll = j.at("not_iopoll").get<std::string>();
    for (const Json& b : j.at("budget_ms_by_hz"))
        l.budget_ms_by_hz.emplace_back(b.at(0).get<int>(), b.at(1).get<double>());
    return l;
}

Json results_json(const SemanticScan& s) {
    Json sites = Json::array(), expansions = Json::array(), others = Json::array();
    for (const SemanticSite& site : s.sites)
        sites.push_back({{"call_begin", site.call_begin},
                         {"through", site.through},
                         {"value", value_json(site.value)},
                         {"name_kind", static_cast<int>(site.name_kind)},
                         {"defined_at", site.defined_at},
                         {"function", site.function},
                         {"conflicting", site.conflicting},
                         {"loop", loop_json(site.loop)}});
    for (const SemanticExpansion& e : s.expansions)
        expansions.push_back({{"use_begin", e.use_begin},
                              {"ordinal", e.ordinal},
                              {"callee", e.callee},
                              {"through", e.through},
                              {"value", value_json(e.value)},
                              {"spelled_at", e.spelled_at},
                              {"function", e.function}});
    for (const OtherSleep& o : s.other_sleeps) {
        Json args = Json::array();
        for (const auto& a : o.args)
            args.push_back(value_json(a));
        others.push_back({{"file", o.file},
                          {"call_begin", o.call_begin},
                          {"callee", o.callee},
                          {"args", args},
                          {"function", o.function},
                          {"loop", loop_json(o.loop)}});
    }
    return {{"format", kFormat}, {"parsed", s.parsed},       {"error", s.error},
            {"sites", sites},    {"expansions", expansions}, {"other_sleeps", others}};
}

SemanticScan results_of(const Json& j) {
    SemanticScan s;
    s.parsed = j.at("parsed").get<bool>();
    s.error = j.at("error").get<std::string>();
    s.from_cache = true;
    for (const Json& site : j.at("sites")) {
        SemanticSite out;
        out.call_begin = site.at("call_begin").get<unsigned>();
        out.through = site.at("through").get<std::string>();
        out.value = value_of(site.at("value"));
        out.name_kind = static_cast<SemanticSite::Name>(site.at("name_kind").get<int>());
        out.defined_at = site.at("defined_at").get<std::string>();
        out.function = site.at("function").get<std::string>();
        out.conflicting = site.at("conflicting").get<bool>();
        out.loop = loop_of(site.at("loop"));
        s.sites.push_back(std::move(out));
    }
    for (const Json& e : j.at("expansions")) {
        SemanticExpansion out;
        out.use_begin = e.at("use_begin").get<unsigned>();
        out.ordinal = e.at("ordinal").get<unsigned>();
        out.callee = e.at("callee").get<std::string>();
        out.through = e.at("through").get<std::string>();
        out.value = value_of(e.at("value"));
        out.spelled_at = e.at("spelled_at").get<std::string>();
        out.function = e.at("function").get<std::string>();
        s.expansions.push_back(std::move(out));
    }
    for (const Json& o : j.at("other_sleeps")) {
        OtherSleep out;
        out.file = o.at("file").get<std::string>();
        out.call_begin = o.at("call_begin").get<unsigned>();
        out.callee = o.at("callee").get<std::string>();
        for (const Json& a : o.at("args"))
            out.args.push_back(value_of(a));
        out.function = o.at("function").get<std::string>();
        out.loop = loop_of(o.at("loop"));
        s.other_sleeps.push_back(std::move(out));
    }
    return s;
}

} // namespace

std::string parse_cache_dir() {
    return cache_dir() + "/parses";
}

std::optional<SemanticScan> cached_parse(const SemanticRequest& request) {
    if (request.result_dir.empty())
        return std::nullopt;
    const fs::path results = entry_of(request, ".json");
    auto text = read_file(results);
    if (!text || !input_files_unchanged(entry_of(request, ".inputs")))
        return std::nullopt;
    try {
        const Json j = Json::parse(*text);
        if (j.at("format") != kFormat)
            return std::nullopt;
        if (const Json& missing = j.at("missing"); !missing.is_null() && !still_missing(missing))
            return std::nullopt;
        std::error_code ec; // its time is its last use (`ksweep cache`)
        fs::last_write_time(results, fs::file_time_type::clock::now(), ec);
        return results_of(j);
    } catch (const Json::exception&) {
        return std::nullopt; // a torn or foreign file: parse again
    } catch (const std::out_of_range&) {
        return std::nullopt;
    }
}

void keep_parse(const SemanticRequest& request, const SemanticScan& scan,
                const std::vector<std::string>& inputs, long long started_ns) {
    if (request.result_dir.empty() || inputs.empty())
        return;
    // A parse that failed is kept like one that succeeded (its first error depends only on the
    // files it read up to it); one that failed on a missing header, with where it looked.
    Json missing = nullptr;
    if (!scan.parsed && scan.error.find("file not found") != std::string::npos) {
        const auto m = missing_header(scan.error, request.args, request.tree);
        if (!m)
            return;
        missing = *m;
    }
    const fs::path results = entry_of(request, ".json");
    std::error_code ec;
    fs::create_directories(results.parent_path(), ec);
    // The inputs first: results without their list are never trusted.
    if (!write_input_files(entry_of(request, ".inputs"), inputs, started_ns))
        return;
    Json kept = results_json(scan);
    kept["missing"] = missing;
    write_file_whole(results, json_text(kept, -1));
}

} // namespace ksweep
