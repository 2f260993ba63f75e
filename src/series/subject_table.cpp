#include "series/subject_table.h"

#include "core/data_dir.h"
#include "core/file_io.h"
#include "core/yaml_checks.h"

#include <algorithm>
#include <cstdlib>
#include <yaml-cpp/yaml.h>

namespace ksweep::series {

namespace {

using Yaml = YamlChecks<SubjectTableError>;

const char* const kPlaceholders[] = {"driver", "dir", "file"};

std::string read_string(const std::string& path, const YAML::Node& node, const char* what) {
    if (!node.IsScalar())
        Yaml::fail(path, node.Mark(), std::string(what) + " must be a string");
    return node.as<std::string>();
}

std::vector<std::string> read_strings(const std::string& path, const YAML::Node& node,
                                      const char* what) {
    if (node.IsScalar())
        return {node.as<std::string>()};
    if (!node.IsSequence() || node.size() == 0)
        Yaml::fail(path, node.Mark(), std::string(what) + " must be a string or a list of them");
    std::vector<std::string> out;
    for (const auto& item : node)
        out.push_back(read_string(path, item, what));
    return out;
}

// Unknown or unclosed placeholders, and a template that does not end in the separator the
// summary follows, are errors: a typo would otherwise reach a mailing list.
void check_template(const std::string& path, const YAML::Node& node, const std::string& t) {
    for (size_t open = t.find('{'); open != std::string::npos; open = t.find('{', open + 1)) {
        size_t close = t.find('}', open);
        if (close == std::string::npos)
            Yaml::fail(path, node.Mark(), "unclosed '{' in subject '" + t + "'");
        std::string name = t.substr(open + 1, close - open - 1);
        if (std::none_of(std::begin(kPlaceholders), std::end(kPlaceholders),
                         [&](const char* p) { return name == p; }))
            Yaml::fail(path, node.Mark(),
                       "unknown placeholder {" + name + "} (known: {driver}, {dir}, {file})");
    }
    if (t.empty() || (t.back() != ':' && t.back() != '-' && t.back() != ')'))
        Yaml::fail(path, node.Mark(),
                   "subject '" + t +
                       "' must end in ':', '-' or ')', the separator before the "
                       "summary");
}

std::string stem(const std::string& file) {
    std::string name = file.substr(file.rfind('/') + 1);
    return name.substr(0, name.rfind('.'));
}

std::string normalized(std::string s) {
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

// Whether `dir` is a whole part of the module's name: "tpm_st33zp24" and "st33zp24",
// "ath9k_htc" and "ath9k", "inv-mpu6050-i2c" and "inv_mpu6050"; not "iwlmvm" and "mvm".
bool names_dir(const std::string& module, const std::string& dir) {
    const std::string m = normalized(module), d = normalized(dir);
    for (size_t pos = m.find(d); !d.empty() && pos != std::string::npos; pos = m.find(d, pos + 1)) {
        const size_t end = pos + d.size();
        if ((pos == 0 || m[pos - 1] == '_') && (end == m.size() || m[end] == '_'))
            return true;
    }
    return false;
}

std::string stripped(const std::string& name, const std::vector<std::string>& strip) {
    for (const auto& s : strip)
        if (name.size() > s.size() && name.compare(0, s.size(), s) == 0)
            return name.substr(s.size());
    return name;
}

// The template with its placeholders filled in; nullopt when one of them is empty.
std::optional<std::string> fill(const std::string& t,
                                const std::vector<std::pair<std::string, std::string>>& values) {
    std::string out;
    for (size_t i = 0; i < t.size(); ++i) {
        if (t[i] != '{') {
            out += t[i];
            continue;
        }
        size_t close = t.find('}', i);
        std::string name = t.substr(i + 1, close - i - 1);
        auto it = std::find_if(values.begin(), values.end(),
                               [&](const auto& kv) { return kv.first == name; });
        if (it == values.end() || it->second.empty())
            return std::nullopt;
        out += it->second;
        i = close;
    }
    return out;
}

} // namespace

std::optional<std::string> SubjectTable::prefix_for(const std::string& file,
                                                    const std::string& module) const {
    auto m = match_for(file, module);
    return m ? std::optional<std::string>(m->prefix) : std::nullopt;
}

std::optional<TableMatch> SubjectTable::match_for(const std::string& file,
                                                  const std::string& module) const {
    std::vector<const SubjectConvention*> matching;
    for (const auto& e : entries)
        if (file.compare(0, e.path.size(), e.path) == 0 && (e.module.empty() || e.module == module))
            matching.push_back(&e);
    // Longest path first; of one path, the entry for this very module first.
    std::stable_sort(matching.begin(), matching.end(), [](const auto* a, const auto* b) {
        if (a->path.size() != b->path.size())
            return a->path.size() > b->path.size();
        return !a->module.empty() && b->module.empty();
    });
    for (const auto* e : matching) {
        const std::string rest = file.substr(e->path.size());
        std::vector<std::string> dirs; // below the entry's path, outermost first
        for (size_t start = 0, slash; (slash = rest.find('/', start)) != std::string::npos;
             start = slash + 1)
            dirs.push_back(rest.substr(start, slash - start));
        const std::string dir = dirs.empty() ? "" : dirs.front();
        // The driver named after its own directory when the module name is made of it; not
        // when that directory is the {dir} the template names already (iio's "accel" in
        // bmc150-accel-core).
        const std::string module_name = module.empty() ? stem(file) : module;
        const bool by_dir = !dirs.empty() && names_dir(module_name, dirs.back());
        for (const auto& t : e->templates) {
            const bool names_dir_already = dirs.size() == 1 && t.find("{dir}") != std::string::npos;
            const std::string driver = by_dir && !names_dir_already ? dirs.back() : module_name;
            const std::vector<std::pair<std::string, std::string>> values = {
                {"driver", stripped(driver, e->strip)},
                {"dir", dir},
                {"file", stripped(stem(file), e->strip)},
            };
            if (auto prefix = fill(t, values))
                return TableMatch{*prefix, e};
        }
    }
    return std::nullopt;
}

SubjectTable parse_subject_table(const std::string& text, const std::string& path) {
    YAML::Node root = Yaml::load(text, path);
    Yaml::require_map(path, root, "a subject prefix table");
    Yaml::reject_unknown_keys(path, root, {"prefixes"});
    if (!root["prefixes"])
        Yaml::fail(path, root.Mark(), "a subject prefix table needs 'prefixes'");
    const YAML::Node list = root["prefixes"];
    if (!list.IsSequence())
        Yaml::fail(path, list.Mark(), "prefixes must be a list");
    SubjectTable table;
    table.source_path = path;
    for (const auto& node : list) {
        Yaml::require_map(path, node, "a prefixes entry");
        Yaml::reject_unknown_keys(path, node, {"path", "module", "subject", "strip", "verb"});
        for (const char* key : {"path", "subject"})
            if (!node[key])
                Yaml::fail(path, node.Mark(), std::string("a prefixes entry needs '") + key + "'");
        SubjectConvention e;
        e.line = node.Mark().line + 1;
        e.path = read_string(path, node["path"], "path");
        if (e.path.empty() || e.path.front() == '/')
            Yaml::fail(path, node["path"].Mark(),
                       "path must be a tree-relative prefix such as drivers/hwmon/");
        if (node["module"])
            e.module = read_string(path, node["module"], "module");
        e.templates = read_strings(path, node["subject"], "subject");
        for (const auto& t : e.templates)
            check_template(path, node["subject"], t);
        if (node["strip"])
            e.strip = read_strings(path, node["strip"], "strip");
        if (node["verb"]) {
            const std::string verb = read_string(path, node["verb"], "verb");
            if (verb != "lower" && verb != "upper")
                Yaml::fail(path, node["verb"].Mark(), "verb must be lower or upper");
            e.lower_verb = verb == "lower";
        }
        for (const auto& other : table.entries)
            if (other.path == e.path && other.module == e.module)
                Yaml::fail(path, node.Mark(),
                           "a second entry for " + e.path +
                               (e.module.empty() ? "" : " module " + e.module) +
                               " (the first is on line " + std::to_string(other.line) + ")");
        table.entries.push_back(std::move(e));
    }
    return table;
}

SubjectTable load_subject_table(const std::string& path) {
    const auto text = read_file(path);
    if (!text)
        throw SubjectTableError(path + ": cannot open subject prefix table");
    return parse_subject_table(*text, path);
}

std::string default_subject_table_path() {
    return data_file("rules/subject_prefixes.yaml");
}

const SubjectTable& shipped_subject_table() {
    // Loaded once (a broken file throws here, and again on the next call).
    static const SubjectTable table = load_subject_table(default_subject_table_path());
    return table;
}

} // namespace ksweep::series
