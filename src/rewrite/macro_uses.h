// What the fixer needs to know about one file's preprocessor-level structure, from clang's raw
// lexer (no preprocessing): every #define with its body and trailing comment, the #includes,
// the conditional and brace depth at each point, and every use of a macro name with the call
// it sits in. This decides whether a millisecond macro can become microseconds.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep {

// One token of the file, with where it is and what surrounds it.
struct FileToken {
    enum Kind { Identifier, Number, Punct, Comment, Other } kind = Other;
    std::string text;
    unsigned begin = 0, end = 0;
    int directive = -1;  // index into FileIndex::directives when inside one, else -1
    int cond_depth = 0;  // #if nesting at this token
    int brace_depth = 0; // { } nesting at this token (directives do not count)
};

struct Directive {
    std::string name;                         // "define", "include", "if", ...
    unsigned begin = 0;                       // the '#'
    unsigned end = 0;                         // end of its last token (comments included)
    unsigned first_token = 0, last_token = 0; // token indices, inclusive
    unsigned line = 0, end_line = 0;          // 1-based
    int cond_depth = 0;                       // depth the directive itself sits at
    int brace_depth = 0;
};

struct MacroDefinition {
    std::string name;
    int directive = -1;
    bool function_like = false;
    std::vector<std::string> params;
    // The replacement list's tokens, comments excluded: [body_begin, body_end) in the file;
    // equal to name_end when the body is empty.
    unsigned name_end = 0, body_begin = 0, body_end = 0;
    unsigned first_body_token = 0, body_tokens = 0;
    // A comment after the body on the directive's last line, e.g. "/* msec */".
    std::optional<unsigned> comment_token;
};

// A use of a macro name outside its own #define line.
struct MacroUse {
    unsigned token = 0;                    // index of the name's token
    std::string callee;                    // the call whose whole argument the name is ("" if none)
    unsigned call_begin = 0, call_end = 0; // [callee, ')') when callee is set
    std::string directive;                 // the directive it sits in ("" outside directives)
    std::string in_define;                 // the macro whose body it sits in, if any
    bool under_defined = false; // "defined(X)" / "defined X" / #ifdef X: the value does not matter
};

class FileIndex {
  public:
    explicit FileIndex(std::string_view text);

    const std::vector<FileToken>& tokens() const { return tokens_; }
    const std::vector<Directive>& directives() const { return directives_; }
    const std::vector<MacroDefinition>& defines() const { return defines_; }

    // Every definition of `name` in the file (several under #ifdef, or none).
    std::vector<const MacroDefinition*> definitions_of(std::string_view name) const;
    // Every use of `name` that is not its own definition (#undef counts as a use).
    std::vector<MacroUse> uses_of(std::string_view name) const;
    // Whether `name` is spelled anywhere in the file as an identifier.
    bool mentions(const std::string& name) const { return identifiers_.count(name) > 0; }

    // 1-based line of a byte offset, and the offsets where a line starts and ends ('\n' excluded).
    unsigned line_of(unsigned offset) const;
    unsigned line_begin(unsigned line) const;
    unsigned line_end(unsigned line) const;
    // Conditional depth the file's own code sits at: 1 inside a header's include guard.
    int base_cond_depth() const { return base_cond_depth_; }
    // Index of the first token at or after an offset.
    unsigned token_at(unsigned offset) const;

  private:
    void lex(std::string_view text);
    void collect_directives();
    void find_include_guard();

    std::string_view text_;
    std::vector<unsigned> line_starts_;
    std::vector<FileToken> tokens_;
    std::vector<Directive> directives_;
    std::vector<MacroDefinition> defines_;
    std::set<std::string> identifiers_;
    int base_cond_depth_ = 0;
};

// Runs of #defines on consecutive lines, at file scope: the blocks a new constant can join.
std::vector<std::vector<const MacroDefinition*>> define_blocks(const FileIndex& index);

} // namespace ksweep
