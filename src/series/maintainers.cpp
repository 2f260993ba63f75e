#include "series/maintainers.h"

#include "core/strings.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <pcre2.h>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ksweep::series {

namespace {

// A compiled Perl-compatible regex: get_maintainer.pl's patterns are Perl regexes, so PCRE2
// (not std::regex) gives the same answers.
class Regex {
  public:
    Regex(const std::string& pattern, uint32_t options) {
        int err = 0;
        PCRE2_SIZE offset = 0;
        code_ = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.c_str()), pattern.size(),
                              options, &err, &offset, nullptr);
        if (!code_) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(err, msg, sizeof msg);
            throw std::runtime_error("MAINTAINERS: pattern '" + pattern +
                                     "': " + reinterpret_cast<char*>(msg));
        }
        data_ = pcre2_match_data_create_from_pattern(code_, nullptr);
    }
    Regex(Regex&& o) noexcept : code_(o.code_), data_(o.data_) {
        o.code_ = nullptr, o.data_ = nullptr;
    }
    Regex(const Regex&) = delete;
    ~Regex() {
        pcre2_match_data_free(data_);
        pcre2_code_free(code_);
    }
    // Captured groups 1..n of the first match, or nullopt.
    std::optional<std::vector<std::string>> match(const std::string& subject) const {
        int rc = pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0,
                             0, data_, nullptr);
        if (rc < 0)
            return std::nullopt;
        PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data_);
        std::vector<std::string> groups;
        for (int i = 1; i < rc; ++i)
            groups.push_back(ov[2 * i] == PCRE2_UNSET
                                 ? std::string()
                                 : subject.substr(ov[2 * i], ov[2 * i + 1] - ov[2 * i]));
        return groups;
    }
    bool search(const std::string& subject) const {
        return pcre2_match(code_, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0,
                           0, data_, nullptr) >= 0;
    }

  private:
    pcre2_code* code_ = nullptr;
    pcre2_match_data* data_ = nullptr;
};

// One "X: value" line of a section.
struct Entry {
    char type;
    std::string value;       // as get_maintainer.pl keeps it (F:/X: converted to a regex)
    std::optional<Regex> re; // F/X anchored at the start, N and K with /x
};

struct Section {
    MaintainerSection info;
    std::vector<Entry> entries;
};

size_t count_slashes(const std::string& s) {
    return std::count(s.begin(), s.end(), '/');
}

// F:/X: patterns: '.' literal, '*' any run, '?' one character; an existing directory gets
// the trailing '/' that makes it match everything below it.
std::string file_pattern_regex(const std::string& tree, const std::string& value) {
    std::string out;
    for (char c : value) {
        if (c == '.')
            out += "\\.";
        else if (c == '*')
            out += ".*";
        else if (c == '?')
            out += '.';
        else
            out += c;
    }
    if (!out.empty() && out.back() != '/' && std::filesystem::is_directory(tree + "/" + out))
        out += '/';
    return out;
}

bool file_match_pattern(const std::string& file, const Entry& e) {
    if (!e.re->search(file))
        return false;
    return e.value.back() == '/' || count_slashes(file) == count_slashes(e.value);
}

// Perl's /[^\w \-]/ on bytes: anything but ASCII word characters, space and '-' forces quotes.
bool must_quote(const std::string& name) {
    return std::any_of(name.begin(), name.end(), [](char c) {
        unsigned char u = static_cast<unsigned char>(c);
        return !(u < 0x80 && (std::isalnum(u) || u == '_' || u == ' ' || u == '-'));
    });
}

std::string strip_quotes(std::string s) {
    s = trim(s);
    if (!s.empty() && s.front() == '"')
        s.erase(0, 1);
    if (!s.empty() && s.back() == '"')
        s.pop_back();
    return s;
}

std::string quote_name(std::string name) {
    if (!must_quote(name))
        return name;
    std::string out = "\"";
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '"' && (i == 0 || name[i - 1] != '\\'))
            out += '\\';
        out += name[i];
    }
    return out + "\"";
}

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

struct Mailmap {
    std::map<std::string, std::string> names, addresses;

    static Mailmap load(const std::string& path) {
        Mailmap m;
        std::ifstream in(path);
        for (std::string line; std::getline(in, line);) {
            if (auto hash = line.find('#'); hash != std::string::npos)
                line.erase(hash);
            line = trim(line);
            if (line.empty())
                continue;
            m.add(line);
        }
        return m;
    }

    // The four forms of git-shortlog(1)'s mailmap, as get_maintainer.pl's read_mailmap().
    void add(const std::string& line) {
        std::vector<std::pair<std::string, std::string>> parts; // (text before <, address)
        size_t pos = 0;
        while (true) {
            size_t lt = line.find('<', pos);
            if (lt == std::string::npos)
                break;
            size_t gt = line.find('>', lt);
            if (gt == std::string::npos)
                return;
            parts.emplace_back(line.substr(pos, lt - pos), line.substr(lt + 1, gt - lt - 1));
            pos = gt + 1;
        }
        if (parts.empty() || !trim(line.substr(pos)).empty())
            return;
        if (parts.size() == 1) {
            if (trim(parts[0].first).empty())
                return;
            auto [name, address] = parse_email(trim(parts[0].first) + " <" + parts[0].second + ">");
            names[address] = name;
        } else if (parts.size() == 2 && trim(parts[0].first).empty() &&
                   trim(parts[1].first).empty()) {
            addresses[parts[1].second] = parts[0].second;
        } else if (parts.size() == 2 && trim(parts[1].first).empty()) {
            auto [name, address] = parse_email(trim(parts[0].first) + " <" + parts[0].second + ">");
            names[parts[1].second] = name;
            addresses[parts[1].second] = address;
        } else if (parts.size() == 2) {
            auto [name, address] = parse_email(trim(parts[0].first) + " <" + parts[0].second + ">");
            auto [wname, waddress] =
                parse_email(trim(parts[1].first) + " <" + parts[1].second + ">");
            std::string wrong = format_email(wname, waddress);
            names[wrong] = name;
            addresses[wrong] = address;
        }
    }

    std::string map(const std::string& line) const {
        auto [name, address] = parse_email(line);
        std::string email = format_email(name, address);
        std::string real_name = name, real_address = address;
        const std::string& key = names.count(email) || addresses.count(email) ? email : address;
        if (auto it = names.find(key); it != names.end())
            real_name = it->second;
        if (auto it = addresses.find(key); it != addresses.end())
            real_address = it->second;
        return format_email(real_name, real_address);
    }
};

// The running state of one get_maintainer.pl invocation.
struct Collector {
    const Mailmap& mailmap;
    std::vector<std::string> email_to, list_to;
    std::set<std::string> names_in_use, addresses_in_use, lists_in_use;

    void push_email(const std::string& line) {
        auto [name, address] = parse_email(line);
        if (address.empty())
            return;
        if ((!name.empty() && names_in_use.count(lower(name))) ||
            addresses_in_use.count(lower(address)))
            return;
        email_to.push_back(format_email(name, address));
        if (!name.empty())
            names_in_use.insert(lower(name));
        addresses_in_use.insert(lower(address));
    }

    void push_list(const std::string& value) {
        std::string address = value, note;
        if (auto ws = value.find_first_of(" \t"); ws != std::string::npos) {
            address = value.substr(0, ws);
            note = trim(value.substr(ws));
        }
        if (note.find("subscribers-only") != std::string::npos)
            return; // --nos: get_maintainer.pl's default
        if (lists_in_use.insert(lower(address)).second)
            list_to.push_back(address);
    }

    void add_section(const Section& s) {
        for (const auto& e : s.entries) {
            if (e.type == 'L')
                push_list(e.value);
            else if (e.type == 'M' || e.type == 'R')
                push_email(e.value);
        }
    }
};

} // namespace

std::pair<std::string, std::string> parse_email(const std::string& text) {
    static const Regex named(R"(^([^<]+)<(.+\@.*)>.*$)", 0);
    static const Regex bracketed(R"(^\s*<(.+\@\S*)>.*$)", 0);
    static const Regex bare(R"(^(.+\@\S*).*$)", 0);
    std::string name, address;
    if (auto g = named.match(text)) {
        name = (*g)[0];
        address = (*g)[1];
    } else if (auto g = bracketed.match(text)) {
        address = (*g)[0];
    } else if (auto g = bare.match(text)) {
        address = (*g)[0];
    }
    return {quote_name(strip_quotes(name)), trim(address)};
}

std::string format_email(std::string name, std::string address) {
    name = quote_name(strip_quotes(name));
    address = trim(address);
    return name.empty() ? address : name + " <" + address + ">";
}

struct Maintainers::Impl {
    std::vector<Section> sections;
    Mailmap mailmap;

    // get_maintainer.pl's per-file section choice: every section with a matching F: or N:
    // and no matching X:, keyed by the depth of the last matching pattern.
    std::vector<std::pair<int, size_t>> matches(const std::string& file) const {
        std::vector<std::pair<int, size_t>> out;
        for (size_t i = 0; i < sections.size(); ++i) {
            const auto& entries = sections[i].entries;
            bool excluded = std::any_of(entries.begin(), entries.end(), [&](const Entry& e) {
                return e.type == 'X' && file_match_pattern(file, e);
            });
            if (excluded)
                continue;
            std::optional<int> depth;
            for (const auto& e : entries) {
                if (e.type == 'F' && file_match_pattern(file, e)) {
                    int pd = static_cast<int>(count_slashes(e.value));
                    if (e.value.back() != '/')
                        ++pd;
                    if (e.value.rfind(".*", 0) == 0)
                        pd = -1;
                    depth = pd;
                } else if (e.type == 'N' && e.re->search(file)) {
                    depth = 0;
                }
            }
            if (depth)
                out.emplace_back(*depth, i);
        }
        std::stable_sort(out.begin(), out.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        return out;
    }
};

Maintainers::Maintainers(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Maintainers::Maintainers(Maintainers&&) noexcept = default;
Maintainers& Maintainers::operator=(Maintainers&&) noexcept = default;
Maintainers::~Maintainers() = default;

Maintainers Maintainers::load(const std::string& tree) {
    std::ifstream in(tree + "/MAINTAINERS");
    if (!in)
        throw std::runtime_error(tree + "/MAINTAINERS: cannot open (not a kernel tree?)");
    auto impl = std::make_unique<Impl>();
    impl->mailmap = Mailmap::load(tree + "/.mailmap");
    Section* current = nullptr;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        bool typed =
            line.size() >= 2 && std::isupper(static_cast<unsigned char>(line[0])) && line[1] == ':';
        if (!typed) {
            // Blank lines and comments are skipped; any other line names a new section.
            if (trim(line).empty() || trim(line)[0] == '#')
                continue;
            impl->sections.push_back({});
            current = &impl->sections.back();
            current->info.name = line;
            continue;
        }
        if (!current)
            continue;
        // "X:\s*(.*)": the value keeps trailing text as written.
        Entry e{line[0], line.substr(2), std::nullopt};
        e.value.erase(0, std::min(e.value.size(), e.value.find_first_not_of(" \t")));
        switch (e.type) {
        case 'F':
        case 'X':
            current->info.file_patterns.push_back(e.value);
            e.value = file_pattern_regex(tree, e.value);
            e.re.emplace("^(?:" + e.value + ")", 0);
            break;
        case 'N':
        case 'K':
            e.re.emplace(e.value, PCRE2_EXTENDED);
            break;
        case 'M':
            current->info.maintainers.push_back(e.value);
            break;
        case 'R':
            current->info.reviewers.push_back(e.value);
            break;
        case 'L':
            current->info.lists.push_back(e.value);
            break;
        case 'S':
            current->info.status = e.value;
            break;
        default:
            break;
        }
        current->entries.push_back(std::move(e));
    }
    // The text before the first section (the file's preface) is not a section.
    while (!impl->sections.empty() && impl->sections.front().entries.empty())
        impl->sections.erase(impl->sections.begin());
    return Maintainers(std::move(impl));
}

size_t Maintainers::section_count() const {
    return impl_->sections.size();
}

std::vector<const MaintainerSection*> Maintainers::sections_for(const std::string& path) const {
    std::vector<const MaintainerSection*> out;
    for (auto [depth, index] : impl_->matches(path))
        out.push_back(&impl_->sections[index].info);
    return out;
}

Recipients Maintainers::recipients(const std::vector<FileForLookup>& files) const {
    Collector c{impl_->mailmap, {}, {}, {}, {}, {}};
    std::set<size_t> keyword_sections;
    for (const auto& f : files) {
        for (auto [depth, index] : impl_->matches(f.path))
            c.add_section(impl_->sections[index]);
        if (f.path == "MAINTAINERS")
            continue;
        for (size_t i = 0; i < impl_->sections.size(); ++i)
            for (const auto& e : impl_->sections[i].entries)
                if (e.type == 'K' && e.re->search(f.text))
                    keyword_sections.insert(i);
    }
    for (size_t i : keyword_sections)
        c.add_section(impl_->sections[i]);

    // deduplicate_email(): through .mailmap, then one spelling per name and per address.
    std::map<std::string, std::pair<std::string, std::string>> by_name, by_address;
    auto dedup = [&](const std::string& email) {
        auto [name, address] = parse_email(impl_->mailmap.map(email));
        if (!name.empty() && by_name.count(lower(name))) {
            std::tie(name, address) = by_name[lower(name)];
        } else if (by_address.count(lower(address))) {
            std::tie(name, address) = by_address[lower(address)];
        } else {
            by_name[lower(name)] = {name, address};
            by_address[lower(address)] = {name, address};
        }
        return impl_->mailmap.map(format_email(name, address));
    };
    for (auto& e : c.email_to)
        e = dedup(e);
    for (auto& e : c.list_to)
        e = dedup(e);

    // get_maintainer.pl leaves out the chief penguin unless --git-chief-penguins.
    const std::string chief = "Linus Torvalds <torvalds@linux-foundation.org>";
    Recipients r;
    std::set<std::string> seen;
    for (const auto& e : c.email_to)
        if (e.find(chief) == std::string::npos && seen.insert(e).second)
            r.to.push_back(e);
    for (const auto& e : c.list_to)
        if (seen.insert(e).second)
            r.cc.push_back(e);
    return r;
}

} // namespace ksweep::series
