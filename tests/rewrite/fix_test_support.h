// Findings for fixer unit tests, made from a fixture's text without the scanner: every call of
// the rule's functions, with the value and resolution the test states for its argument.
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "rewrite/macro_uses.h"
#include "rewrite/scanner.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ksweep::testing {

inline std::string read_fixture(const std::string& name) {
    const std::string path = std::string(KSWEEP_FIXTURES) + "/fix/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read fixture " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline Rule shipped_rule() {
    return load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
}

// What the test says an argument resolves to. defined_at "" for a macro: the file's own
// #define of it.
struct Resolved {
    long long ms;
    Resolution how;
    std::string defined_at;
};

// Every `callee(argument)` of the rule's functions in `text`; arguments missing from `values`
// are literals when they are decimal, else unresolved.
inline std::vector<Finding> findings_in(const Rule& rule, const std::string& path,
                                        const std::string& text,
                                        const std::map<std::string, Resolved>& values = {}) {
    const FileIndex index(text);
    const auto& toks = index.tokens();
    std::vector<Finding> out;
    for (unsigned i = 0; i + 1 < toks.size(); ++i) {
        if (toks[i].kind != FileToken::Identifier || !rule.is_rule_function(toks[i].text) ||
            toks[i + 1].text != "(")
            continue;
        unsigned j = i + 1;
        for (int depth = 0; j < toks.size(); ++j) {
            depth += toks[j].text == "(" ? 1 : toks[j].text == ")" ? -1 : 0;
            if (depth == 0)
                break;
        }
        Finding f;
        f.file = path;
        f.line = index.line_of(toks[i].begin);
        f.callee = toks[i].text;
        f.call_begin = toks[i].begin;
        f.call_end = toks[j].end;
        f.arg_begin = toks[i + 2].begin;
        f.arg_end = toks[j - 1].end;
        f.call = text.substr(f.call_begin, f.call_end - f.call_begin);
        f.argument = text.substr(f.arg_begin, f.arg_end - f.arg_begin);
        f.in_macro_body = toks[i].directive >= 0;
        if (auto it = values.find(f.argument); it != values.end()) {
            f.value = it->second.ms;
            f.resolution = it->second.how;
            if (it->second.how == Resolution::Macro || it->second.how == Resolution::Enum) {
                f.constant = f.argument;
                f.defined_at = it->second.defined_at;
                if (f.defined_at.empty())
                    for (const MacroDefinition* m : index.definitions_of(f.argument))
                        f.defined_at =
                            path + ":" + std::to_string(index.directives()[m->directive].line);
            }
        } else if (!f.argument.empty() &&
                   f.argument.find_first_not_of("0123456789") == std::string::npos) {
            f.value = std::stoll(f.argument);
            f.resolution = Resolution::Literal;
        }
        judge_finding(f, rule, 250, true);
        out.push_back(f);
    }
    return out;
}

} // namespace ksweep::testing
