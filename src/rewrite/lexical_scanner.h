// The lexical engine: one pass of clang's raw lexer over a file, no preprocessing. It finds
// the rule's calls in code and in #define bodies, folds literals and same-file #defines, and
// says which sites only the semantic engine can settle (names from headers, enums, casts).
#pragma once

#include "core/finding.h"
#include "core/rule.h"

#include <string>
#include <utility>
#include <vector>

namespace ksweep {

struct LexicalSite {
    Finding finding;             // engine = lexical
    bool needs_semantic = false; // unresolved here, but full preprocessing may fold it
    std::string single_name;     // the argument when it is exactly one identifier
};

struct LexicalScan {
    std::vector<LexicalSite> sites; // in file order
    // Byte ranges [open brace, close brace] of top-level blocks (function bodies and the
    // like): the semantic engine parses only the bodies that contain a call.
    std::vector<std::pair<unsigned, unsigned>> top_level_blocks;

    bool needs_semantic() const;
};

LexicalScan lexical_scan(const Rule& rule, const std::string& rel_path, const std::string& content);

} // namespace ksweep
