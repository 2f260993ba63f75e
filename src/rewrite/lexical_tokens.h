// A file's raw tokens: clang's lexer in raw mode (no preprocessing, no includes), comments
// dropped, string and character literals kept whole so "msleep(" inside them is never a call.
#pragma once

#include <clang/Basic/TokenKinds.h>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep {

struct RawToken {
    clang::tok::TokenKind kind;
    unsigned offset = 0; // byte offset in the file
    unsigned length = 0;
    bool line_start = false; // first token of a logical line (after backslash-newlines)
    std::string_view text;   // points into the lexed buffer

    unsigned end() const { return offset + length; }
    bool is(clang::tok::TokenKind k) const { return kind == k; }
    bool is_identifier() const { return kind == clang::tok::raw_identifier; }
    bool is_identifier(std::string_view name) const { return is_identifier() && text == name; }
};

// Lexes `content` (which must stay alive while the tokens are used).
std::vector<RawToken> lex_raw(const std::string& content);

// Byte offset -> 1-based line and column.
class LineTable {
  public:
    explicit LineTable(std::string_view content);
    unsigned line(unsigned offset) const;
    unsigned column(unsigned offset) const;

  private:
    std::vector<unsigned> starts_;
};

} // namespace ksweep
