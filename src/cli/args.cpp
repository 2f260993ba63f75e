#include "cli/args.h"

#include "core/strings.h"
#include "series/text_wrap.h"

#include <charconv>
#include <cstdio>

namespace ksweep::cli {

ArgParser::ArgParser(std::string command, std::string synopsis, std::string description)
    : command_(std::move(command)), synopsis_(std::move(synopsis)),
      description_(std::move(description)) {}

void ArgParser::add(std::string name, std::string metavar, std::string help, bool takes_value,
                    std::function<bool(const std::string&)> set) {
    Spec spec;
    spec.name = std::move(name);
    spec.metavar = std::move(metavar);
    spec.help = std::move(help);
    spec.set = std::move(set);
    spec.takes_value = takes_value;
    specs_.push_back(std::move(spec));
}

void ArgParser::flag(std::string name, bool* out, std::string help) {
    add(std::move(name), "", std::move(help), false,
        [out](const std::string&) { return *out = true; });
}

void ArgParser::option(std::string name, std::string* out, std::string metavar, std::string help) {
    add(std::move(name), std::move(metavar), std::move(help), true, [out](const std::string& v) {
        *out = v;
        return true;
    });
}

void ArgParser::option(std::string name, int* out, std::string metavar, std::string help) {
    add(std::move(name), std::move(metavar), std::move(help), true, [out](const std::string& v) {
        auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
        return ec == std::errc() && p == v.data() + v.size();
    });
}

void ArgParser::repeated(std::string name, std::vector<std::string>* out, std::string metavar,
                         std::string help) {
    add(std::move(name), std::move(metavar), std::move(help), true, [out](const std::string& v) {
        out->push_back(v);
        return true;
    });
}

void ArgParser::flag_with_value(std::string name, bool* given, std::string* value,
                                std::string metavar, std::string help,
                                std::function<bool(const std::string&)> is_value) {
    add(std::move(name), std::move(metavar), std::move(help), false,
        [given, value](const std::string& v) {
            *given = true;
            *value = v;
            return true;
        });
    specs_.back().value_only_attached = true;
    specs_.back().is_value = std::move(is_value);
}

void ArgParser::deprecated(std::string old_name, const std::string& new_name, std::string why) {
    const Spec* current = find(new_name);
    if (!current)
        return;
    Spec spec = *current;
    spec.deprecated_for = new_name;
    spec.help = std::move(why);
    spec.name = std::move(old_name);
    specs_.push_back(std::move(spec));
}

void ArgParser::positionals(std::vector<std::string>* out, size_t min_count) {
    positionals_ = out;
    min_positionals_ = min_count;
}

const ArgParser::Spec* ArgParser::find(const std::string& name) const {
    for (const auto& s : specs_)
        if (s.name == name)
            return &s;
    return nullptr;
}

std::optional<int> ArgParser::parse(int argc, char** argv) {
    bool only_positionals = false;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (only_positionals || arg == "-" || arg.empty() || arg[0] != '-') {
            if (!positionals_) {
                std::fprintf(stderr, "ksweep %s: unexpected argument '%s'\n", command_.c_str(),
                             arg.c_str());
                return 2;
            }
            positionals_->push_back(arg);
            continue;
        }
        if (arg == "--") {
            only_positionals = true;
            continue;
        }
        if (arg == "-h" || arg == "--help") {
            print_help();
            return 0;
        }
        std::string value;
        bool inline_value = false;
        if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
            value = arg.substr(eq + 1);
            arg.resize(eq);
            inline_value = true;
        }
        const Spec* spec = find(arg);
        if (spec && !spec->deprecated_for.empty())
            std::fprintf(stderr, "ksweep %s: %s is deprecated: it is now %s (%s)\n",
                         command_.c_str(), arg.c_str(), spec->deprecated_for.c_str(),
                         spec->help.c_str());
        // "-j1": a single-dash option that takes a value may have it attached.
        if (!spec && arg.size() > 2 && arg[1] != '-') {
            if (const Spec* s = find(arg.substr(0, 2)); s && s->takes_value) {
                spec = s;
                value = arg.substr(2);
                arg.resize(2);
                inline_value = true;
            }
        }
        if (!spec) {
            std::fprintf(stderr, "ksweep %s: unknown option '%s' (see --help)\n", command_.c_str(),
                         arg.c_str());
            return 2;
        }
        if (!spec->takes_value && inline_value && !spec->value_only_attached) {
            std::fprintf(stderr, "ksweep %s: %s takes no value\n", command_.c_str(), arg.c_str());
            return 2;
        }
        if (spec->value_only_attached && !inline_value && spec->is_value && i + 1 < argc &&
            spec->is_value(argv[i + 1])) {
            value = argv[++i];
            inline_value = true;
        }
        if (spec->takes_value && !inline_value) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "ksweep %s: %s needs a value\n", command_.c_str(),
                             arg.c_str());
                return 2;
            }
            value = argv[++i];
        }
        if (!spec->set(value)) {
            std::fprintf(stderr, "ksweep %s: bad value '%s' for %s\n", command_.c_str(),
                         value.c_str(), arg.c_str());
            return 2;
        }
    }
    if (positionals_ && positionals_->size() < min_positionals_) {
        std::fprintf(stderr, "usage: ksweep %s %s\n", command_.c_str(), synopsis_.c_str());
        return 2;
    }
    return std::nullopt;
}

void ArgParser::print_help() const {
    std::printf("usage: ksweep %s %s\n\n%s\n", command_.c_str(), synopsis_.c_str(),
                description_.c_str());
    if (!specs_.empty())
        std::printf("\noptions:\n%s", options_help().c_str());
}

std::string ArgParser::options_help(size_t width) const {
    constexpr int kHelpColumn = 27; // "  " + 24 columns for the name + " "
    std::string out;
    for (const auto& s : specs_) {
        if (!s.deprecated_for.empty())
            continue;
        std::string left = "  " + s.name;
        if (!s.metavar.empty())
            left += (s.value_only_attached ? "[=" + s.metavar + "]" : " " + s.metavar);
        // A long name gets its help on the next line, at the same column.
        if (left.size() + 1 > kHelpColumn)
            out += left + "\n" + std::string(kHelpColumn, ' ');
        else
            out += left + std::string(kHelpColumn - left.size(), ' ');
        std::string help;
        for (const std::string& word : split_words(s.help))
            help += (help.empty() ? "" : " ") + word;
        out += series::git_wrap(help, -kHelpColumn, kHelpColumn, static_cast<int>(width));
        out += "\n";
    }
    return out;
}

} // namespace ksweep::cli
