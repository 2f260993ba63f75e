#include "cli/args.h"

#include <charconv>
#include <cstdio>

namespace ksweep::cli {

ArgParser::ArgParser(std::string command, std::string synopsis, std::string description)
    : command_(std::move(command)), synopsis_(std::move(synopsis)),
      description_(std::move(description)) {}

void ArgParser::flag(std::string name, bool* out, std::string help) {
    specs_.push_back({std::move(name), "", std::move(help),
                      [out](const std::string&) { return *out = true; }, false});
}

void ArgParser::option(std::string name, std::string* out, std::string metavar, std::string help) {
    specs_.push_back({std::move(name), std::move(metavar), std::move(help),
                      [out](const std::string& v) {
                          *out = v;
                          return true;
                      },
                      true});
}

void ArgParser::option(std::string name, int* out, std::string metavar, std::string help) {
    specs_.push_back({std::move(name), std::move(metavar), std::move(help),
                      [out](const std::string& v) {
                          auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), *out);
                          return ec == std::errc() && p == v.data() + v.size();
                      },
                      true});
}

void ArgParser::repeated(std::string name, std::vector<std::string>* out, std::string metavar,
                         std::string help) {
    specs_.push_back({std::move(name), std::move(metavar), std::move(help),
                      [out](const std::string& v) {
                          out->push_back(v);
                          return true;
                      },
                      true});
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
    if (specs_.empty())
        return;
    std::printf("\noptions:\n");
    for (const auto& s : specs_) {
        std::string left = s.name + (s.metavar.empty() ? "" : " " + s.metavar);
        std::printf("  %-24s %s\n", left.c_str(), s.help.c_str());
    }
}

} // namespace ksweep::cli
