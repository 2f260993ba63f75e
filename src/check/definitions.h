// What a C file defines that the value of a sleep can depend on: its #defines and enumerators,
// read with the raw lexer (no preprocessing), so that the two sides of a patch can be compared
// without compiling either.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep::check {

struct Definitions {
    struct Text {
        std::string text;            // tokens joined by single spaces, comments dropped
        std::set<std::string> names; // the identifiers in it
    };
    std::map<std::string, Text> macros;        // name -> "#define" lines of it, in order
    std::vector<Text> enums;                   // enum bodies, "{ ... }"
    std::map<std::string, size_t> enumerators; // name -> index into enums
    // Every directive and enum body in file order: when two sides have the same, every
    // constant in the file means what it meant (headers aside).
    std::vector<std::string> context;
};

Definitions definitions_in(std::string_view text);

// Names whose meaning differs between two versions of a file: macros defined differently or
// on one side only, every enumerator of an enum whose body changed, and the macros and
// enumerators of `after` that name one of those.
std::set<std::string> changed_names(const Definitions& before, const Definitions& after);

// Adds to `names` the macros and enumerators of `defs` that name one of them, until none is new.
void add_dependent_names(const Definitions& defs, std::set<std::string>& names);

// The identifiers of `text` (raw lexer: comments and strings do not count).
std::set<std::string> names_in(std::string_view text);
// Whether the identifiers of `text` include one of `names`.
bool names_any(std::string_view text, const std::set<std::string>& names);

} // namespace ksweep::check
