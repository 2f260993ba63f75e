#include "rewrite/lexical_scanner.h"

#include "rewrite/lexical_eval.h"
#include "rewrite/lexical_tokens.h"

#include <algorithm>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>

namespace ksweep {

namespace tok = clang::tok;

bool LexicalScan::needs_semantic() const {
    return std::any_of(sites.begin(), sites.end(),
                       [](const LexicalSite& s) { return s.needs_semantic; });
}

namespace {

struct MacroDef {
    unsigned line = 0;
    bool function_like = false;
    bool inactive = false;
    std::vector<std::string_view> params;
    size_t body_begin = 0, body_end = 0; // token indices
};

// #if / #elif / #else as far as the raw text tells: only literal 0 and 1 are decided.
class ConditionStack {
  public:
    void push_if(std::optional<bool> cond) { frames_.push_back(enter(cond)); }
    void elif (std::optional<bool> cond) {
        if (frames_.empty())
            return;
        Frame& f = frames_.back();
        if (f.known && f.taken)
            f.inactive = true;
        else if (f.known)
            f = enter(cond);
        else
            f.inactive = false;
    }
    void else_() {
        if (frames_.empty())
            return;
        Frame& f = frames_.back();
        f.inactive = f.known && f.taken;
    }
    void pop() {
        if (!frames_.empty())
            frames_.pop_back();
    }
    bool inactive() const {
        return std::any_of(frames_.begin(), frames_.end(),
                           [](const Frame& f) { return f.inactive; });
    }

  private:
    struct Frame {
        bool inactive = false, known = false, taken = false;
    };
    static Frame enter(std::optional<bool> cond) {
        if (!cond)
            return {};
        return {!*cond, true, *cond};
    }
    std::vector<Frame> frames_;
};

constexpr std::string_view kNotDeclarators[] = {"return", "case", "else",   "goto",
                                                "sizeof", "do",   "typeof", "__typeof__"};

bool is_keyword_before_expression(std::string_view s) {
    return std::find(std::begin(kNotDeclarators), std::end(kNotDeclarators), s) !=
           std::end(kNotDeclarators);
}

class FileScanner {
  public:
    FileScanner(const Rule& rule, const std::string& rel_path, const std::string& content)
        : rule_(rule), rel_path_(rel_path), content_(content), tokens_(lex_raw(content)),
          lines_(content), directive_(tokens_.size(), false), inactive_(tokens_.size(), false) {}

    LexicalScan run() {
        read_directives();
        read_code();
        std::sort(out_.sites.begin(), out_.sites.end(), [](const auto& a, const auto& b) {
            return a.finding.call_begin < b.finding.call_begin;
        });
        return std::move(out_);
    }

  private:
    // Tokens [i, end) of the logical line starting at i.
    size_t line_end(size_t i) const {
        size_t j = i + 1;
        while (j < tokens_.size() && !tokens_[j].line_start)
            ++j;
        return j;
    }

    static std::optional<bool> literal_condition(std::span<const RawToken> cond) {
        if (cond.size() == 1 && cond[0].is(tok::numeric_constant)) {
            if (auto v = parse_integer_literal(cond[0].text))
                return *v != 0;
        }
        return std::nullopt;
    }

    void read_directives() {
        ConditionStack conditions;
        for (size_t i = 0; i < tokens_.size();) {
            if (!(tokens_[i].line_start && tokens_[i].is(tok::hash))) {
                inactive_[i] = conditions.inactive();
                ++i;
                continue;
            }
            size_t end = line_end(i);
            for (size_t k = i; k < end; ++k)
                directive_[k] = true;
            if (i + 1 < end && tokens_[i + 1].is_identifier()) {
                std::string_view name = tokens_[i + 1].text;
                std::span<const RawToken> rest(tokens_.data() + i + 2, end - (i + 2));
                if (name == "if")
                    conditions.push_if(literal_condition(rest));
                else if (name == "ifdef" || name == "ifndef")
                    conditions.push_if(std::nullopt);
                else if (name == "elif")
                    conditions.elif (literal_condition(rest));
                else if (name == "else")
                    conditions.else_();
                else if (name == "endif")
                    conditions.pop();
                else if (name == "define" && i + 2 < end && tokens_[i + 2].is_identifier())
                    read_define(i + 2, end, conditions.inactive());
            }
            i = end;
        }
    }

    void read_define(size_t name_idx, size_t end, bool inactive) {
        MacroDef def;
        def.line = lines_.line(tokens_[name_idx].offset);
        def.inactive = inactive;
        size_t body = name_idx + 1;
        // Function-like only when "(" touches the name.
        if (body < end && tokens_[body].is(tok::l_paren) &&
            tokens_[body].offset == tokens_[name_idx].end()) {
            def.function_like = true;
            for (++body; body < end && !tokens_[body].is(tok::r_paren); ++body)
                if (tokens_[body].is_identifier())
                    def.params.push_back(tokens_[body].text);
                else if (tokens_[body].is(tok::ellipsis))
                    def.params.push_back("__VA_ARGS__");
            ++body;
        }
        def.body_begin = std::min(body, end);
        def.body_end = end;
        macros_[tokens_[name_idx].text].push_back(def);
        const MacroDef& stored = macros_[tokens_[name_idx].text].back();
        for (size_t k = def.body_begin; k < def.body_end; ++k)
            if (is_call(k, def.body_end, k > def.body_begin ? &tokens_[k - 1] : nullptr))
                add_site(k, def.body_end, nullptr, &stored);
    }

    // tokens_[i] names a rule function and is called, not declared or defined. `prev` is the
    // token before it in the same stream (code or one #define body), if any: a directive line
    // between code tokens is not what precedes the call.
    bool is_call(size_t i, size_t limit, const RawToken* prev) const {
        const RawToken& t = tokens_[i];
        if (!t.is_identifier() || !rule_.is_rule_function(std::string(t.text)))
            return false;
        if (i + 1 >= limit || !tokens_[i + 1].is(tok::l_paren))
            return false;
        if (prev && (prev->is(tok::arrow) || prev->is(tok::period)))
            return false; // ops->msleep(...): a member, not the function
        if (prev && prev->is_identifier() && !is_keyword_before_expression(prev->text))
            return false; // "void msleep(unsigned int msecs)": a declaration
        return true;
    }

    void read_code() {
        int depth = 0, parens = 0;
        size_t block_open = 0;
        std::string function;
        size_t function_start = 0;
        const RawToken* prev = nullptr;
        for (size_t i = 0; i < tokens_.size(); prev = directive_[i] ? prev : &tokens_[i], ++i) {
            if (directive_[i])
                continue;
            const RawToken& t = tokens_[i];
            if (t.is(tok::l_brace)) {
                if (depth == 0) {
                    block_open = i;
                    function = function_name_before(i, &function_start);
                }
                ++depth;
            } else if (t.is(tok::r_brace)) {
                if (depth > 0 && --depth == 0) {
                    out_.top_level_blocks.emplace_back(tokens_[block_open].offset, t.offset);
                    function.clear();
                }
            } else if (depth == 0 && t.is(tok::l_paren)) {
                ++parens;
            } else if (depth == 0 && t.is(tok::r_paren)) {
                parens = std::max(0, parens - 1);
            } else if (depth == 0 && parens == 0 && t.is_identifier()) {
                note_file_scope_variable(i);
            }
            if (is_call(i, tokens_.size(), prev)) {
                Scope scope{depth > 0 ? function : std::string(), depth > 0 ? function_start : i};
                add_site(i, tokens_.size(), &scope, nullptr, prev);
            }
        }
    }

    // "static int foo(struct x *y) __must_hold(&l) {" -> "foo". Empty for struct bodies and
    // initializers.
    std::string function_name_before(size_t brace, size_t* start) const {
        size_t j = brace;
        std::string name;
        while (j > 0 && tokens_[j - 1].is(tok::r_paren)) {
            int level = 0;
            size_t k = j - 1;
            for (;; --k) {
                if (directive_[k])
                    continue;
                if (tokens_[k].is(tok::r_paren))
                    ++level;
                else if (tokens_[k].is(tok::l_paren) && --level == 0)
                    break;
                if (k == 0)
                    return name;
            }
            if (k == 0 || !tokens_[k - 1].is_identifier())
                return name;
            name = std::string(tokens_[k - 1].text);
            *start = k - 1;
            // An annotation after the parameter list: keep walking back to the function.
            if (!name.starts_with("__") || k < 2 || !tokens_[k - 2].is(tok::r_paren))
                return name;
            j = k - 1;
        }
        return name;
    }

    static bool ends_declarator(const RawToken& t) {
        return t.is(tok::semi) || t.is(tok::equal) || t.is(tok::l_square) || t.is(tok::comma) ||
               t.is(tok::r_paren);
    }

    // "type name" followed by ; = [ , or ): a declaration of `name`.
    bool declares(size_t i) const {
        if (i == 0 || i + 1 >= tokens_.size() || !ends_declarator(tokens_[i + 1]))
            return false;
        const RawToken& prev = tokens_[i - 1];
        if (prev.is_identifier())
            return !is_keyword_before_expression(prev.text);
        if (prev.is(tok::comma))
            return in_declarator_list(i - 1);
        // "struct foo *name": only for lower-case names, "a * FOO" is a product.
        return prev.is(tok::star) && std::any_of(tokens_[i].text.begin(), tokens_[i].text.end(),
                                                 [](char c) { return c >= 'a' && c <= 'z'; });
    }

    // The comma at `comma` separates declarators ("int ret, delay;"): the statement it is in,
    // outside any parentheses, starts with "type name" or "type *name".
    bool in_declarator_list(size_t comma) const {
        int parens = 0;
        for (size_t k = comma; k-- > 0;) {
            if (directive_[k])
                continue;
            const RawToken& t = tokens_[k];
            if (t.is(tok::r_paren))
                ++parens;
            else if (t.is(tok::l_paren) && --parens < 0)
                return false; // an argument or parameter list
            else if (parens == 0 && (t.is(tok::semi) || t.is(tok::l_brace) || t.is(tok::r_brace))) {
                size_t first = k + 1;
                while (first < comma && directive_[first])
                    ++first;
                return first + 1 < comma && tokens_[first].is_identifier() &&
                       !is_keyword_before_expression(tokens_[first].text) &&
                       (tokens_[first + 1].is_identifier() || tokens_[first + 1].is(tok::star));
            }
        }
        return false;
    }

    void note_file_scope_variable(size_t i) {
        if (declares(i))
            file_variables_.insert(tokens_[i].text);
    }

    struct Scope {
        std::string function;
        size_t start; // first token of the function (its name), for finding its locals
    };

    NameMeaning lookup(const RawToken& name, const Scope* scope, const MacroDef* in_macro,
                       bool call_inactive) const {
        if (in_macro) {
            if (std::find(in_macro->params.begin(), in_macro->params.end(), name.text) !=
                in_macro->params.end())
                return {NameMeaning::Variable, {}};
        }
        if (scope && !scope->function.empty()) {
            size_t here =
                std::lower_bound(tokens_.begin(), tokens_.end(), name.offset,
                                 [](const RawToken& t, unsigned off) { return t.offset < off; }) -
                tokens_.begin();
            for (size_t k = scope->start; k < here && k < tokens_.size(); ++k)
                if (!directive_[k] && tokens_[k].text == name.text && declares(k))
                    return {NameMeaning::Variable, {}};
        }
        if (file_variables_.count(name.text))
            return {NameMeaning::Variable, {}};
        auto it = macros_.find(name.text);
        if (it == macros_.end())
            return {};
        const MacroDef* chosen = nullptr;
        for (const MacroDef& def : it->second) {
            if (def.inactive && !call_inactive)
                continue;
            if (chosen && !same_body(*chosen, def))
                return {NameMeaning::Ambiguous, {}};
            chosen = &def;
        }
        if (!chosen)
            return {};
        if (chosen->function_like)
            return {NameMeaning::FunctionMacro, {}};
        return {NameMeaning::Macro, body(*chosen)};
    }

    std::span<const RawToken> body(const MacroDef& def) const {
        return {tokens_.data() + def.body_begin, def.body_end - def.body_begin};
    }

    bool same_body(const MacroDef& a, const MacroDef& b) const {
        auto x = body(a), y = body(b);
        return a.function_like == b.function_like &&
               std::equal(x.begin(), x.end(), y.begin(), y.end(),
                          [](const RawToken& p, const RawToken& q) { return p.text == q.text; });
    }

    // The ')' that closes the '(' at `open`, or `limit` when the call is not closed before it.
    size_t matching_paren(size_t open, size_t limit) const {
        int level = 0;
        for (size_t close = open; close < limit; ++close) {
            if (tokens_[close].is(tok::l_paren))
                ++level;
            else if (tokens_[close].is(tok::r_paren) && --level == 0)
                return close;
        }
        return limit;
    }

    // A statement of its own, "...; schedule_timeout_killable(x);": nothing takes its value.
    // `prev` is the token before the callee in code (null in a #define body: not known).
    std::optional<bool> result_used(const RawToken* prev, size_t close) const {
        if (!prev)
            return std::nullopt;
        size_t next = close + 1;
        while (next < tokens_.size() && directive_[next])
            ++next;
        const bool statement_start =
            prev->is(tok::semi) || prev->is(tok::l_brace) || prev->is(tok::r_brace) ||
            prev->is(tok::r_paren) ||
            (prev->is_identifier() && (prev->text == "else" || prev->text == "do"));
        return !(statement_start && next < tokens_.size() && tokens_[next].is(tok::semi));
    }

    // The call whose callee is tokens_[i]; `limit` ends the directive for calls in a #define.
    // A callee the rule knows only as callee(through(ARG)) is a site only in that shape; ARG is
    // then the value.
    void add_site(size_t i, size_t limit, const Scope* scope, const MacroDef* in_macro,
                  const RawToken* prev = nullptr) {
        size_t open = i + 1, close = matching_paren(open, limit);
        size_t value_open = open, value_close = close; // the parentheses around the value
        std::string through;
        const std::string callee_name(tokens_[i].text);
        if (close < limit && rule_.takes_through(callee_name) && open + 2 < close &&
            tokens_[open + 1].is_identifier() && tokens_[open + 2].is(tok::l_paren) &&
            matching_paren(open + 2, close) == close - 1 &&
            rule_.form_for(callee_name, std::string(tokens_[open + 1].text))) {
            through = std::string(tokens_[open + 1].text);
            value_open = open + 2;
            value_close = close - 1;
        }
        if (through.empty() && !rule_.form_for(callee_name, ""))
            return; // schedule_timeout(HZ / 10): not a shape the rule looks at
        LexicalSite site;
        Finding& f = site.finding;
        const RawToken& callee = tokens_[i];
        f.file = rel_path_;
        f.line = lines_.line(callee.offset);
        f.column = lines_.column(callee.offset);
        f.callee = std::string(callee.text);
        f.rule = rule_.name;
        f.function = scope ? scope->function : std::string();
        f.in_macro_body = in_macro != nullptr;
        f.inactive = in_macro ? in_macro->inactive : inactive_[i];
        f.engine = Engine::Lexical;
        f.call_begin = callee.offset;
        if (close >= limit) {
            f.call_end = f.arg_begin = f.arg_end = tokens_[open].end();
            f.call = content_.substr(f.call_begin, f.call_end - f.call_begin);
            f.note = "call not closed";
            out_.sites.push_back(std::move(site));
            return;
        }
        f.through = through;
        f.unit = rule_.form_for(f.callee, through)->unit;
        f.result_used = in_macro ? std::nullopt : result_used(prev, close);
        f.call_end = tokens_[close].end();
        open = value_open;
        close = value_close;
        f.arg_begin = open + 1 < close ? tokens_[open + 1].offset : tokens_[close].offset;
        f.arg_end = open + 1 < close ? tokens_[close - 1].end() : tokens_[close].offset;
        f.call = content_.substr(f.call_begin, f.call_end - f.call_begin);
        f.argument = content_.substr(f.arg_begin, f.arg_end - f.arg_begin);

        std::span<const RawToken> arg(tokens_.data() + open + 1, close - open - 1);
        bool call_inactive = f.inactive;
        LexicalValue v = evaluate_tokens(arg, [&](const RawToken& name) {
            return lookup(name, scope, in_macro, call_inactive);
        });
        f.value = v.value;
        if (arg.size() == 1 && arg[0].is_identifier()) {
            site.single_name = std::string(arg[0].text);
            NameMeaning m = lookup(arg[0], scope, in_macro, call_inactive);
            if (m.kind == NameMeaning::Macro || m.kind == NameMeaning::FunctionMacro) {
                f.constant = site.single_name;
                f.defined_at =
                    rel_path_ + ":" + std::to_string(defining_line(arg[0], call_inactive));
            }
        }
        if (!v.value)
            f.resolution = Resolution::Unresolved;
        else if (arg.size() == 1 && arg[0].is(tok::numeric_constant))
            f.resolution = Resolution::Literal;
        else if (!f.constant.empty())
            f.resolution = Resolution::Macro;
        else
            f.resolution = Resolution::Expression;
        if (!v.value)
            f.note = v.non_constant ? "not a constant: " + v.reason : v.reason;
        site.needs_semantic = v.needs_semantic;
        out_.sites.push_back(std::move(site));
    }

    unsigned defining_line(const RawToken& name, bool call_inactive) const {
        for (const MacroDef& def : macros_.at(name.text))
            if (!def.inactive || call_inactive)
                return def.line;
        return 0;
    }

    const Rule& rule_;
    const std::string& rel_path_;
    const std::string& content_;
    std::vector<RawToken> tokens_;
    LineTable lines_;
    std::vector<bool> directive_; // token belongs to a preprocessor directive line
    std::vector<bool> inactive_;  // token is in an #if 0 (or #if 1 ... #else) branch
    std::unordered_map<std::string_view, std::vector<MacroDef>> macros_;
    std::set<std::string_view> file_variables_;
    LexicalScan out_;
};

} // namespace

LexicalScan lexical_scan(const Rule& rule, const std::string& rel_path,
                         const std::string& content) {
    // Most files never name a rule function: a substring search spares lexing them.
    bool mentioned =
        std::any_of(rule.functions.begin(), rule.functions.end(),
                    [&](const std::string& f) { return content.find(f) != std::string::npos; });
    if (!mentioned)
        return {};
    return FileScanner(rule, rel_path, content).run();
}

} // namespace ksweep
