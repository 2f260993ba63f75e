// A small argument parser for subcommands: --flag, --option VALUE / --option=VALUE, -j N / -jN,
// git-style flags that take a value only as --flag=VALUE, deprecated spellings that still
// work, positionals, and --help generated from the declarations (wrapped, with its indent).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ksweep::cli {

class ArgParser {
  public:
    ArgParser(std::string command, std::string synopsis, std::string description);

    void flag(std::string name, bool* out, std::string help);
    void option(std::string name, std::string* out, std::string metavar, std::string help);
    void option(std::string name, int* out, std::string metavar, std::string help);
    // An option that may be given several times.
    void repeated(std::string name, std::vector<std::string>* out, std::string metavar,
                  std::string help);
    // A flag that takes a value only when attached, the way git's --signoff / --color do:
    // `--name` sets *given, `--name=VALUE` sets *given and *value. The next argument is taken
    // as its value only when `is_value` says it cannot be anything else (an older spelling).
    void flag_with_value(std::string name, bool* given, std::string* value, std::string metavar,
                         std::string help,
                         std::function<bool(const std::string&)> is_value = nullptr);
    // `old_name` still works as `new_name` (declared before), with a note on stderr; --help
    // does not list it.
    void deprecated(std::string old_name, const std::string& new_name, std::string why);
    void positionals(std::vector<std::string>* out, size_t min_count);

    // nullopt: go on. A value: return it from the subcommand (0 after --help, 2 on misuse;
    // the message is already printed).
    std::optional<int> parse(int argc, char** argv);

    void print_help() const;
    // The help of the options: each "  NAME METAVAR  help", the help re-flowed to `width`
    // columns with every line after the first at the help column.
    std::string options_help(size_t width = 80) const;

  private:
    struct Spec {
        std::string name, metavar, help;
        std::function<bool(const std::string&)> set; // false: bad value
        bool takes_value = false;
        bool value_only_attached = false;                 // flag_with_value
        std::function<bool(const std::string&)> is_value; // flag_with_value's next argument
        std::string deprecated_for;                       // "": a current name
    };
    void add(std::string name, std::string metavar, std::string help, bool takes_value,
             std::function<bool(const std::string&)> set);
    const Spec* find(const std::string& name) const;

    std::string command_, synopsis_, description_;
    std::vector<Spec> specs_;
    std::vector<std::string>* positionals_ = nullptr;
    size_t min_positionals_ = 0;
};

} // namespace ksweep::cli
