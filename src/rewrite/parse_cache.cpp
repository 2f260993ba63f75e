#include "rewrite/parse_cache.h"

#include "core/cache_dir.h"
#include "core/file_io.h"
#include "core/json.h"
#include "core/sha256.h"
#include "rewrite/input_files.h"

#include <clang/Basic/Version.h>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

// Every field of a site and an expansion is kept: one added to them must be added here too
// (and kFormat raised), or results served from the cache would lack it.
static_assert(sizeof(SemanticSite) == 136 && sizeof(SemanticExpansion) == 152,
              "a field was added to SemanticSite or SemanticExpansion: keep it in parse_cache.cpp");
constexpr const char* kFormat = "ksweep parse results v1";

std::string key_of(const SemanticRequest& r) {
    Sha256 hash;
    hash.update(std::string(kFormat) + "\n" CLANG_VERSION_STRING "\n" + r.abs_path + "\n");
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

Json results_json(const SemanticScan& s) {
    Json sites = Json::array(), expansions = Json::array();
    for (const SemanticSite& site : s.sites)
        sites.push_back({{"call_begin", site.call_begin},
                         {"through", site.through},
                         {"value", value_json(site.value)},
                         {"name_kind", static_cast<int>(site.name_kind)},
                         {"defined_at", site.defined_at},
                         {"function", site.function},
                         {"conflicting", site.conflicting}});
    for (const SemanticExpansion& e : s.expansions)
        expansions.push_back({{"use_begin", e.use_begin},
                              {"ordinal", e.ordinal},
                              {"callee", e.callee},
                              {"through", e.through},
                              {"value", value_json(e.value)},
                              {"spelled_at", e.spelled_at},
                              {"function", e.function}});
    return {{"format", kFormat}, {"sites", sites}, {"expansions", expansions}};
}

SemanticScan results_of(const Json& j) {
    SemanticScan s;
    s.parsed = true;
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
    return s;
}

// Written to a temporary name, then renamed: a reader sees all of it or nothing.
bool write_whole(const fs::path& to, const std::string& text) {
    const fs::path tmp = to.string() + ".tmp" + std::to_string(getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!(out << text << std::flush))
            return false;
    }
    std::error_code ec;
    fs::rename(tmp, to, ec);
    return !ec;
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
        std::error_code ec; // its time is its last use (`ksweep cache`)
        fs::last_write_time(results, fs::file_time_type::clock::now(), ec);
        return results_of(j);
    } catch (const Json::exception&) {
        return std::nullopt; // a torn or foreign file: parse again
    }
}

void keep_parse(const SemanticRequest& request, const SemanticScan& scan,
                const std::vector<std::string>& inputs, long long started_ns) {
    if (request.result_dir.empty() || !scan.parsed || inputs.empty())
        return;
    const fs::path results = entry_of(request, ".json");
    std::error_code ec;
    fs::create_directories(results.parent_path(), ec);
    // The inputs first: results without their list are never trusted.
    const fs::path list = entry_of(request, ".inputs");
    const fs::path list_tmp = list.string() + ".tmp" + std::to_string(getpid());
    if (!write_input_files(list_tmp, inputs, started_ns)) {
        fs::remove(list_tmp, ec);
        return;
    }
    fs::rename(list_tmp, list, ec);
    if (!ec)
        write_whole(results, json_text(results_json(scan), -1));
}

} // namespace ksweep
