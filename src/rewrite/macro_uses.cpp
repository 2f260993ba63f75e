#include "rewrite/macro_uses.h"

#include <algorithm>
#include <clang/Basic/LangOptions.h>
#include <clang/Basic/SourceLocation.h>
#include <clang/Lex/Lexer.h>

namespace ksweep {

namespace {

clang::LangOptions kernel_c_options() {
    clang::LangOptions opts;
    opts.C11 = 1;
    opts.GNUMode = 1;
    opts.LineComment = 1;
    return opts;
}

FileToken::Kind kind_of(const clang::Token& tok) {
    if (tok.is(clang::tok::raw_identifier))
        return FileToken::Identifier;
    if (tok.is(clang::tok::numeric_constant))
        return FileToken::Number;
    if (tok.is(clang::tok::comment))
        return FileToken::Comment;
    if (tok.isOneOf(clang::tok::string_literal, clang::tok::char_constant, clang::tok::unknown))
        return FileToken::Other;
    return FileToken::Punct;
}

bool opens_condition(const std::string& d) {
    return d == "if" || d == "ifdef" || d == "ifndef";
}
bool continues_condition(const std::string& d) {
    return d == "else" || d == "elif" || d == "elifdef" || d == "elifndef";
}

} // namespace

FileIndex::FileIndex(std::string_view text) : text_(text) {
    line_starts_.push_back(0);
    for (unsigned i = 0; i < text.size(); ++i)
        if (text[i] == '\n')
            line_starts_.push_back(i + 1);
    lex(text);
    collect_directives();
    find_include_guard();
}

void FileIndex::lex(std::string_view text) {
    // The raw lexer wants a NUL after the buffer; a string_view need not have one.
    const std::string buffer(text);
    const clang::LangOptions opts = kernel_c_options();
    clang::Lexer lexer(clang::SourceLocation(), opts, buffer.c_str(), buffer.c_str(),
                       buffer.c_str() + buffer.size());
    lexer.SetCommentRetentionState(true);

    int directive = -1;
    clang::Token tok;
    for (;;) {
        lexer.LexFromRawLexer(tok);
        if (tok.is(clang::tok::eof))
            break;
        FileToken t;
        t.kind = kind_of(tok);
        // A raw lexer over an invalid file location reports plain byte offsets.
        t.begin = tok.getLocation().getRawEncoding();
        t.end = t.begin + tok.getLength();
        t.text = std::string(text.substr(t.begin, t.end - t.begin));
        if (tok.isAtStartOfLine())
            directive = -1;
        if (directive < 0 && tok.isAtStartOfLine() && tok.is(clang::tok::hash)) {
            directive = static_cast<int>(directives_.size());
            Directive d;
            d.begin = t.begin;
            d.first_token = static_cast<unsigned>(tokens_.size());
            directives_.push_back(d);
        }
        t.directive = directive;
        if (t.kind == FileToken::Identifier)
            identifiers_.insert(t.text);
        tokens_.push_back(std::move(t));
    }
}

void FileIndex::collect_directives() {
    for (auto& d : directives_) {
        unsigned i = d.first_token;
        while (i + 1 < tokens_.size() &&
               tokens_[i + 1].directive == tokens_[d.first_token].directive)
            ++i;
        d.last_token = i;
        d.end = tokens_[i].end;
        d.line = line_of(d.begin);
        d.end_line = line_of(d.end == 0 ? 0 : d.end - 1);
        for (unsigned k = d.first_token + 1; k <= d.last_token; ++k)
            if (tokens_[k].kind != FileToken::Comment) {
                d.name = tokens_[k].text;
                break;
            }
    }

    int cond = 0, brace = 0;
    for (unsigned i = 0; i < tokens_.size(); ++i) {
        FileToken& t = tokens_[i];
        if (t.directive >= 0) {
            Directive& d = directives_[t.directive];
            if (i == d.first_token) {
                if (d.name == "endif" || continues_condition(d.name))
                    cond = std::max(0, cond - 1);
                d.cond_depth = cond;
                d.brace_depth = brace;
                if (opens_condition(d.name) || continues_condition(d.name))
                    ++cond;
            }
            t.cond_depth = d.cond_depth;
            t.brace_depth = brace;
            continue;
        }
        if (t.text == "}")
            brace = std::max(0, brace - 1);
        t.cond_depth = cond;
        t.brace_depth = brace;
        if (t.text == "{")
            ++brace;
    }

    for (unsigned di = 0; di < directives_.size(); ++di) {
        const Directive& d = directives_[di];
        if (d.name != "define")
            continue;
        std::vector<unsigned> code; // the directive's tokens without comments
        for (unsigned k = d.first_token; k <= d.last_token; ++k)
            if (tokens_[k].kind != FileToken::Comment)
                code.push_back(k);
        if (code.size() < 3 || tokens_[code[2]].kind != FileToken::Identifier)
            continue;
        MacroDefinition m;
        m.name = tokens_[code[2]].text;
        m.directive = static_cast<int>(di);
        m.name_end = tokens_[code[2]].end;
        size_t next = 3;
        // A '(' right after the name, without a space, makes a function-like macro.
        if (next < code.size() && tokens_[code[next]].text == "(" &&
            tokens_[code[next]].begin == m.name_end) {
            m.function_like = true;
            for (++next; next < code.size() && tokens_[code[next]].text != ")"; ++next)
                if (tokens_[code[next]].kind == FileToken::Identifier ||
                    tokens_[code[next]].text == "...")
                    m.params.push_back(tokens_[code[next]].text);
            ++next;
        }
        if (next < code.size()) {
            m.first_body_token = code[next];
            m.body_tokens = static_cast<unsigned>(code.size() - next);
            m.body_begin = tokens_[code[next]].begin;
            m.body_end = tokens_[code.back()].end;
        } else {
            m.body_begin = m.body_end = m.name_end;
        }
        const FileToken& last = tokens_[d.last_token];
        if (last.kind == FileToken::Comment && last.begin >= m.body_end &&
            line_of(last.begin) == d.end_line)
            m.comment_token = d.last_token;
        defines_.push_back(std::move(m));
    }
}

// A header's "#ifndef FOO_H / #define FOO_H" wraps everything in one conditional level.
void FileIndex::find_include_guard() {
    if (directives_.size() < 2)
        return;
    const Directive& first = directives_[0];
    const Directive& second = directives_[1];
    if (first.name != "ifndef" || second.name != "define" || first.cond_depth != 0)
        return;
    // Nothing but comments may come before the guard.
    for (unsigned i = 0; i < first.first_token; ++i)
        if (tokens_[i].kind != FileToken::Comment)
            return;
    base_cond_depth_ = 1;
}

std::vector<const MacroDefinition*> FileIndex::definitions_of(std::string_view name) const {
    std::vector<const MacroDefinition*> out;
    for (const auto& m : defines_)
        if (m.name == name)
            out.push_back(&m);
    return out;
}

std::vector<MacroUse> FileIndex::uses_of(std::string_view name) const {
    auto prev_code = [&](unsigned i) -> int {
        for (int k = static_cast<int>(i) - 1; k >= 0; --k)
            if (tokens_[k].kind != FileToken::Comment)
                return k;
        return -1;
    };
    auto next_code = [&](unsigned i) -> int {
        for (unsigned k = i + 1; k < tokens_.size(); ++k)
            if (tokens_[k].kind != FileToken::Comment)
                return static_cast<int>(k);
        return -1;
    };

    std::vector<MacroUse> out;
    for (unsigned i = 0; i < tokens_.size(); ++i) {
        const FileToken& t = tokens_[i];
        if (t.kind != FileToken::Identifier || t.text != name)
            continue;
        MacroUse use;
        use.token = i;
        if (t.directive >= 0) {
            const Directive& d = directives_[t.directive];
            use.directive = d.name;
            if (d.name == "define") {
                const MacroDefinition* def = nullptr;
                for (const auto& m : defines_)
                    if (m.directive == t.directive)
                        def = &m;
                if (def && def->name_end == t.end)
                    continue; // the definition itself
                if (def)
                    use.in_define = def->name;
            }
            if (d.name == "ifdef" || d.name == "ifndef")
                use.under_defined = true;
            const int p = prev_code(i);
            const int pp = p >= 0 ? prev_code(p) : -1;
            if ((p >= 0 && tokens_[p].text == "defined") ||
                (p >= 0 && tokens_[p].text == "(" && pp >= 0 && tokens_[pp].text == "defined"))
                use.under_defined = true;
        }
        const int p = prev_code(i), n = next_code(i);
        const int callee = p >= 0 ? prev_code(p) : -1;
        if (p >= 0 && n >= 0 && callee >= 0 && tokens_[p].text == "(" && tokens_[n].text == ")" &&
            tokens_[callee].kind == FileToken::Identifier &&
            tokens_[callee].directive == t.directive) {
            use.callee = tokens_[callee].text;
            use.call_begin = tokens_[callee].begin;
            use.call_end = tokens_[n].end;
        }
        out.push_back(std::move(use));
    }
    return out;
}

unsigned FileIndex::line_of(unsigned offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    return static_cast<unsigned>(it - line_starts_.begin());
}

unsigned FileIndex::line_begin(unsigned line) const {
    if (line == 0 || line > line_starts_.size())
        return static_cast<unsigned>(text_.size());
    return line_starts_[line - 1];
}

unsigned FileIndex::line_end(unsigned line) const {
    if (line >= line_starts_.size())
        return static_cast<unsigned>(text_.size());
    return line_starts_[line] - 1;
}

unsigned FileIndex::token_at(unsigned offset) const {
    auto it = std::lower_bound(tokens_.begin(), tokens_.end(), offset,
                               [](const FileToken& t, unsigned off) { return t.begin < off; });
    return static_cast<unsigned>(it - tokens_.begin());
}

std::vector<std::vector<const MacroDefinition*>> define_blocks(const FileIndex& index) {
    std::vector<std::vector<const MacroDefinition*>> blocks;
    const Directive* previous = nullptr;
    for (const MacroDefinition& m : index.defines()) {
        const Directive& d = index.directives()[m.directive];
        if (d.brace_depth != 0) {
            previous = nullptr;
            continue;
        }
        if (!previous || d.line != previous->end_line + 1 || d.cond_depth != previous->cond_depth)
            blocks.emplace_back();
        blocks.back().push_back(&m);
        previous = &d;
    }
    return blocks;
}

} // namespace ksweep
