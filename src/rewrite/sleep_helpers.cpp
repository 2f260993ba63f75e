#include "rewrite/sleep_helpers.h"

#include "kbuild/sleep_api.h"

#include <algorithm>
#include <filesystem>
#include <regex>

namespace ksweep {

namespace {

// A driver's own headers are a handful; the bound keeps a header cycle or a huge tree cheap.
constexpr size_t kMaxHeaders = 32;

// The line of `name`'s definition in `text`, when its body sleeps its first parameter in
// milliseconds with an hrtimer: usleep_range() or fsleep() of param * 1000.
std::optional<unsigned> sleeping_definition(const std::string& name, const std::string& text) {
    using namespace kbuild::sleep_api_detail;
    const auto function = find_function(strip_comments(text), name);
    if (!function || function->param.empty())
        return std::nullopt;
    const std::string body = squeeze(function->body);
    const std::string& param = function->param;
    const bool sleeps = body.find("usleep_range(") != std::string::npos ||
                        body.find("fsleep(") != std::string::npos;
    const bool in_ms = body.find(param + "*1000") != std::string::npos ||
                       body.find(param + "*USEC_PER_MSEC") != std::string::npos;
    if (!sleeps || !in_ms)
        return std::nullopt;
    return static_cast<unsigned>(function->line);
}

// The file's own quote includes, tree-relative.
std::vector<std::string> quote_includes(const std::string& path, const std::string& text) {
    static const std::regex include(R"re(#\s*include\s*"([^"]+)")re");
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), include);
         it != std::sregex_iterator(); ++it)
        out.push_back((dir / (*it)[1].str()).lexically_normal().generic_string());
    return out;
}

} // namespace

std::optional<SleepHelper> find_sleep_helper(const std::vector<std::string>& names,
                                             const std::string& path, const std::string& text,
                                             const ReadTreeFile& read) {
    if (names.empty())
        return std::nullopt;
    // The file and the quote headers it reaches (tpm_tis_i2c_cr50.c -> tpm_tis_core.h ->
    // tpm.h), breadth first, each once.
    std::vector<std::pair<std::string, std::string>> files{{path, text}};
    for (size_t i = 0; i < files.size() && files.size() < kMaxHeaders; ++i)
        for (const std::string& header : quote_includes(files[i].first, files[i].second)) {
            const bool seen = std::any_of(files.begin(), files.end(),
                                          [&](const auto& f) { return f.first == header; });
            if (!seen)
                if (auto header_text = read(header))
                    files.emplace_back(header, std::move(*header_text));
        }
    for (const std::string& name : names)
        for (const auto& [file, content] : files)
            if (auto line = sleeping_definition(name, content))
                return SleepHelper{name, file + ":" + std::to_string(*line)};
    return std::nullopt;
}

} // namespace ksweep
