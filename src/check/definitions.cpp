#include "check/definitions.h"

#include "rewrite/macro_uses.h"

#include <algorithm>

namespace ksweep::check {

namespace {

using Tokens = std::vector<FileToken>;

void append(Definitions::Text& out, const FileToken& t) {
    if (t.kind == FileToken::Comment)
        return;
    if (!out.text.empty())
        out.text += ' ';
    out.text += t.text;
    if (t.kind == FileToken::Identifier)
        out.names.insert(t.text);
}

// The enum body whose '{' is tokens[open]: its text, enumerators, and the index after '}'.
size_t read_enum(const Tokens& tokens, size_t open, Definitions& defs) {
    Definitions::Text body;
    std::vector<std::string> names;
    int depth = 0, parens = 0;
    bool expect_name = true;
    size_t i = open;
    for (; i < tokens.size(); ++i) {
        const FileToken& t = tokens[i];
        if (t.directive >= 0)
            continue;
        append(body, t);
        if (t.text == "{")
            ++depth;
        else if (t.text == "}" && --depth == 0)
            break;
        else if (t.text == "(")
            ++parens;
        else if (t.text == ")")
            --parens;
        else if (depth == 1 && parens == 0 && t.text == ",")
            expect_name = true;
        else if (depth == 1 && parens == 0 && expect_name && t.kind == FileToken::Identifier) {
            names.push_back(t.text);
            expect_name = false;
        }
    }
    for (const std::string& n : names)
        defs.enumerators[n] = defs.enums.size();
    defs.context.push_back(body.text);
    defs.enums.push_back(std::move(body));
    return i;
}

} // namespace

Definitions definitions_in(std::string_view text) {
    const FileIndex index(text);
    const Tokens& tokens = index.tokens();
    Definitions defs;
    for (const Directive& d : index.directives()) {
        Definitions::Text line;
        for (unsigned k = d.first_token; k <= d.last_token && k < tokens.size(); ++k)
            append(line, tokens[k]);
        defs.context.push_back(line.text);
    }
    for (const MacroDefinition& m : index.defines()) {
        const Directive& d = index.directives()[m.directive];
        Definitions::Text& macro = defs.macros[m.name];
        for (unsigned k = d.first_token; k <= d.last_token && k < tokens.size(); ++k)
            append(macro, tokens[k]);
        macro.names.erase(m.name);
        macro.names.erase("define");
    }
    for (size_t i = 0; i + 1 < tokens.size(); ++i) {
        if (tokens[i].directive >= 0 || tokens[i].text != "enum")
            continue;
        size_t open = i + 1;
        if (open < tokens.size() && tokens[open].kind == FileToken::Identifier)
            ++open;
        if (open < tokens.size() && tokens[open].text == "{")
            i = read_enum(tokens, open, defs);
    }
    return defs;
}

void add_dependent_names(const Definitions& defs, std::set<std::string>& names) {
    for (bool grew = true; grew;) {
        grew = false;
        auto depends = [&](const std::set<std::string>& used) {
            return std::any_of(used.begin(), used.end(),
                               [&](const std::string& n) { return names.count(n) > 0; });
        };
        for (const auto& [name, macro] : defs.macros)
            if (!names.count(name) && depends(macro.names))
                grew |= names.insert(name).second;
        for (const auto& [name, body] : defs.enumerators)
            if (!names.count(name) && depends(defs.enums[body].names))
                grew |= names.insert(name).second;
    }
}

std::set<std::string> changed_names(const Definitions& before, const Definitions& after) {
    std::set<std::string> names;
    auto macro_differs = [](const Definitions& a, const Definitions& b, const std::string& name) {
        auto other = b.macros.find(name);
        return other == b.macros.end() || other->second.text != a.macros.at(name).text;
    };
    for (const auto& [name, macro] : after.macros)
        if (macro_differs(after, before, name))
            names.insert(name);
    for (const auto& [name, macro] : before.macros)
        if (macro_differs(before, after, name))
            names.insert(name);
    // An enumerator's value follows from its whole enum body (implicit values count up).
    auto enum_differs = [](const Definitions& a, const Definitions& b, const std::string& name) {
        auto other = b.enumerators.find(name);
        return other == b.enumerators.end() ||
               b.enums[other->second].text != a.enums[a.enumerators.at(name)].text;
    };
    for (const auto& [name, body] : after.enumerators)
        if (enum_differs(after, before, name))
            names.insert(name);
    for (const auto& [name, body] : before.enumerators)
        if (enum_differs(before, after, name))
            names.insert(name);
    add_dependent_names(after, names);
    return names;
}

std::set<std::string> names_in(std::string_view text) {
    std::set<std::string> out;
    const FileIndex index(text);
    for (const FileToken& t : index.tokens())
        if (t.kind == FileToken::Identifier)
            out.insert(t.text);
    return out;
}

bool names_any(std::string_view text, const std::set<std::string>& names) {
    if (names.empty())
        return false;
    const std::set<std::string> used = names_in(text);
    return std::any_of(used.begin(), used.end(),
                       [&](const std::string& n) { return names.count(n) > 0; });
}

} // namespace ksweep::check
