#include "rewrite/missing_header.h"

#include <algorithm>
#include <filesystem>
#include <regex>

namespace fs = std::filesystem;

namespace ksweep {

std::optional<Json> missing_header(const std::string& error, const std::vector<std::string>& args,
                                   const std::string& tree) {
    static const std::regex form(R"(^(.*):\d+: '([^']+)' file not found$)");
    std::smatch m;
    // Without -nostdinc the compiler's own folders are searched too: not kept.
    if (std::find(args.begin(), args.end(), "-nostdinc") == args.end() ||
        !std::regex_match(error, m, form))
        return std::nullopt;
    fs::path includer(m[1].str());
    if (includer.is_relative() && tree.empty())
        return std::nullopt; // its folder is not known
    if (includer.is_relative())
        includer = fs::path(tree) / includer;
    std::vector<std::string> dirs{includer.parent_path().string()};
    for (size_t i = 0; i < args.size(); ++i)
        for (const char* flag : {"-I", "-isystem", "-iquote", "-idirafter"}) {
            const std::string f = flag;
            if (args[i] == f && i + 1 < args.size())
                dirs.push_back(args[i + 1]);
            else if (args[i].size() > f.size() && args[i].rfind(f, 0) == 0)
                dirs.push_back(args[i].substr(f.size()));
        }
    return Json{{"name", m[2].str()}, {"dirs", dirs}};
}

bool still_missing(const Json& missing) {
    const auto name = missing.at("name").get<std::string>();
    for (const Json& dir : missing.at("dirs")) {
        std::error_code ec;
        if (fs::exists(fs::path(dir.get<std::string>()) / name, ec) || ec)
            return false;
    }
    return true;
}

} // namespace ksweep
