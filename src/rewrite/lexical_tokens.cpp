#include "rewrite/lexical_tokens.h"

#include <algorithm>
#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>

namespace ksweep {

namespace {

clang::LangOptions kernel_c_options() {
    clang::LangOptions opts;
    opts.C99 = opts.C11 = true;
    opts.GNUMode = true;
    opts.LineComment = true; // "//" comments
    return opts;
}

} // namespace

std::vector<RawToken> lex_raw(const std::string& content) {
    static const clang::LangOptions opts = kernel_c_options();
    const char* begin = content.c_str(); // NUL-terminated, as the lexer requires
    // An invalid file location makes every token's raw location encoding its byte offset.
    clang::Lexer lexer(clang::SourceLocation(), opts, begin, begin, begin + content.size());
    std::vector<RawToken> tokens;
    tokens.reserve(content.size() / 6);
    clang::Token tok;
    for (;;) {
        lexer.LexFromRawLexer(tok);
        if (tok.is(clang::tok::eof))
            break;
        RawToken t;
        t.kind = tok.getKind();
        t.offset = tok.getLocation().getRawEncoding();
        t.length = tok.getLength();
        t.line_start = tok.isAtStartOfLine();
        t.text = std::string_view(content).substr(t.offset, t.length);
        tokens.push_back(t);
    }
    if (!tokens.empty())
        tokens.front().line_start = true;
    return tokens;
}

LineTable::LineTable(std::string_view content) {
    starts_.push_back(0);
    for (unsigned i = 0; i < content.size(); ++i)
        if (content[i] == '\n')
            starts_.push_back(i + 1);
}

unsigned LineTable::line(unsigned offset) const {
    return std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin();
}

unsigned LineTable::column(unsigned offset) const {
    return offset - starts_[line(offset) - 1] + 1;
}

} // namespace ksweep
