#include "rewrite/sleep_helpers.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>

namespace ksweep {

namespace {

// A driver's own headers are a handful; the bound keeps a header cycle or a huge tree cheap.
constexpr size_t kMaxHeaders = 32;

std::string without_spaces(std::string_view s) {
    std::string out;
    for (char c : s)
        if (!std::isspace(static_cast<unsigned char>(c)))
            out += c;
    return out;
}

// The body of `static inline void name(unsigned int param)` in `text` and its line, when the
// body sleeps param milliseconds with an hrtimer.
std::optional<unsigned> sleeping_definition(const std::string& name, const std::string& text) {
    const std::regex head("static\\s+inline\\s+void\\s+" + name +
                          "\\s*\\(\\s*(?:const\\s+)?unsigned\\s+(?:int\\s+)?(\\w+)\\s*\\)\\s*\\{");
    std::smatch m;
    if (!std::regex_search(text, m, head))
        return std::nullopt;
    const size_t open = static_cast<size_t>(m.position(0) + m.length(0)) - 1;
    int depth = 0;
    size_t close = open;
    for (; close < text.size(); ++close) {
        depth += (text[close] == '{') - (text[close] == '}');
        if (depth == 0)
            break;
    }
    const std::string body = without_spaces(std::string_view(text).substr(open, close - open));
    const std::string param = m[1].str();
    const bool sleeps = body.find("usleep_range(") != std::string::npos ||
                        body.find("fsleep(") != std::string::npos;
    const bool in_ms = body.find(param + "*1000") != std::string::npos ||
                       body.find(param + "*USEC_PER_MSEC") != std::string::npos;
    if (!sleeps || !in_ms)
        return std::nullopt;
    return static_cast<unsigned>(std::count(text.begin(), text.begin() + m.position(0), '\n') + 1);
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
