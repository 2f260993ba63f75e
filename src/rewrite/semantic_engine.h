// The semantic engine: parses one file the way kbuild compiles it (LibTooling, clang 14),
// finds the rule's calls with AST matchers and folds their argument with
// Expr::EvaluateAsInt, through header macros, enums and constant expressions.
#pragma once

#include "core/loop.h"
#include "core/rule.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ksweep {

struct SemanticRequest {
    std::string abs_path; // where the file is (or would be) in the tree
    std::string tree;     // absolute tree root, to make locations tree-relative
    const std::string* content = nullptr;
    std::vector<std::string> args;      // compiler arguments, without the file
    std::vector<std::string> functions; // the rule's callees
    // (callee, through) of the rule's forms: callee(through(ARG)) folds ARG; an empty through
    // is a form callee(ARG).
    std::vector<std::pair<std::string, std::string>> forms;
    // Lexical knowledge that saves work: where calls are, and which top-level bodies hold
    // them (the others are skipped unparsed).
    std::vector<unsigned> call_offsets;
    std::vector<std::pair<unsigned, unsigned>> blocks;
    // call offset -> the argument when it is a single identifier (to name the constant)
    std::vector<std::pair<unsigned, std::string>> single_names;
    // Also report every rule call a macro used in this file expands to (SemanticScan::
    // expansions). Every function body of the file is parsed then, not only those with calls.
    bool expansions = false;
    // Sleeps that are not the rule's (usleep_range, fsleep) to report with their loop
    // (SemanticScan::other_sleeps): check compares a loop's sleep before and after a patch.
    // Only in function bodies that are parsed (all of them with `expansions`).
    std::vector<std::string> other_sleeps;
    // Where precompiled preambles are kept (preamble_cache.h); "" parses the whole file.
    std::string preamble_dir;
    // Where results are kept (parse_cache.h); "" parses every time.
    std::string result_dir;
};

struct SemanticSite {
    unsigned call_begin = 0; // byte offset of the callee's spelling in the file
    std::string through;     // the form's conversion call, "" for callee(ARG)
    std::optional<long long> value;
    enum class Name { None, Macro, Enum } name_kind = Name::None;
    std::string defined_at;   // "file:line" of the macro or enumerator
    std::string function;     // enclosing function of the (first) expansion
    bool conflicting = false; // spelled in a macro whose expansions fold differently
    LoopInfo loop;            // the loop around it (a #define's: its tightest expansion's)
};

// A sleep of SemanticRequest::other_sleeps.
struct OtherSleep {
    std::string file;        // tree-relative (the scanner fills it in)
    unsigned call_begin = 0; // byte offset of the callee's spelling in the file
    std::string callee;
    std::vector<std::optional<long long>> args; // each argument's value, when constant
    std::string function;
    LoopInfo loop;
};

// A rule call spelled in a macro's body (here or in a header), at one use of the macro here.
struct SemanticExpansion {
    unsigned use_begin = 0; // byte offset of the macro's name where the file uses it
    unsigned ordinal = 0;   // which rule call of that use's expansion, in source order
    std::string callee;
    std::string through; // the form's conversion call, "" for callee(ARG)
    std::optional<long long> value;
    std::string spelled_at; // "file:line" of the call in the macro body
    std::string function;   // enclosing function of the use
};

struct SemanticScan {
    bool parsed = false;
    bool preamble_reused = false; // the headers came from a precompiled preamble
    bool from_cache = false;      // kept from an earlier parse of the same inputs, not parsed
    std::string error;            // first error when the parse failed
    std::vector<SemanticSite> sites;
    std::vector<SemanticExpansion> expansions; // with SemanticRequest::expansions, by use
    std::vector<OtherSleep> other_sleeps;      // with SemanticRequest::other_sleeps
};

// Adds the rule's callees and forms to the request's (several rules: one parse for all).
void look_for(SemanticRequest& request, const Rule& rule);

SemanticScan semantic_scan(const SemanticRequest& request);

} // namespace ksweep
