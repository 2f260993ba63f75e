// A small argument parser for subcommands: --flag, --option VALUE / --option=VALUE, -j N / -jN,
// positionals, and --help generated from the declarations.
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
    void positionals(std::vector<std::string>* out, size_t min_count);

    // nullopt: go on. A value: return it from the subcommand (0 after --help, 2 on misuse;
    // the message is already printed).
    std::optional<int> parse(int argc, char** argv);

    void print_help() const;

  private:
    struct Spec {
        std::string name, metavar, help;
        std::function<bool(const std::string&)> set; // false: bad value
        bool takes_value;
    };
    const Spec* find(const std::string& name) const;

    std::string command_, synopsis_, description_;
    std::vector<Spec> specs_;
    std::vector<std::string>* positionals_ = nullptr;
    size_t min_positionals_ = 0;
};

} // namespace ksweep::cli
