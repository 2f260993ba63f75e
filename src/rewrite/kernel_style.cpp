#include "rewrite/kernel_style.h"

#include <cctype>
#include <regex>

namespace ksweep {

namespace {

constexpr unsigned kTab = 8;

std::string join_terms(const std::vector<std::string>& terms) {
    std::string out;
    for (size_t i = 0; i < terms.size(); ++i)
        out += (i ? " + " : "") + terms[i];
    return out;
}

// Same case as `like` for the first letter of `word`, upper case throughout if `like` is.
std::string match_case(std::string word, const std::string& like) {
    bool all_upper = true;
    for (char c : like)
        if (std::islower(static_cast<unsigned char>(c)))
            all_upper = false;
    if (all_upper) {
        for (char& c : word)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    } else if (std::isupper(static_cast<unsigned char>(like[0]))) {
        word[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    }
    return word;
}

} // namespace

unsigned line_start(std::string_view text, unsigned offset) {
    const size_t nl = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
    return nl == std::string_view::npos ? 0 : static_cast<unsigned>(nl + 1);
}

unsigned column_at(std::string_view text, unsigned offset) {
    const unsigned start = line_start(text, offset);
    return width_from(text.substr(start, offset - start), 0);
}

unsigned width_from(std::string_view piece, unsigned column) {
    unsigned col = column;
    for (char c : piece)
        col = c == '\t' ? (col / kTab + 1) * kTab : col + 1;
    return col - column;
}

std::string indent_to(unsigned column, bool tabs) {
    if (!tabs)
        return std::string(column, ' ');
    return std::string(column / kTab, '\t') + std::string(column % kTab, ' ');
}

std::string pad_between(unsigned from, unsigned to, bool tabs) {
    if (to <= from)
        return " ";
    if (!tabs)
        return std::string(to - from, ' ');
    std::string out;
    unsigned col = from;
    while ((col / kTab + 1) * kTab <= to) {
        out += '\t';
        col = (col / kTab + 1) * kTab;
    }
    out += std::string(to - col, ' ');
    return out;
}

bool line_uses_tabs(std::string_view text, unsigned offset) {
    const unsigned start = line_start(text, offset);
    return start >= text.size() || text[start] != ' ';
}

std::string layout_call(const CallText& call, unsigned column, unsigned tail_width, bool tabs,
                        Continuation continuation) {
    // A broken line inside a #define needs room for its " \"; the last line has its tail.
    const unsigned broken_limit = kKernelLineLimit - (continuation.needed ? 2 : 0);
    const unsigned open = column + static_cast<unsigned>(call.callee.size()) + 1;

    std::string out = call.callee + "(";
    unsigned col = open;
    auto line_end = [&] {
        if (!continuation.needed)
            return std::string("\n");
        if (col < continuation.column)
            return pad_between(col, continuation.column, tabs) + "\\\n";
        return std::string(" \\\n");
    };
    // `last`: the piece ends the call, so the line goes on with the tail, not a break.
    auto fits = [&](unsigned from, const std::string& piece, bool last) {
        return from + piece.size() + (last ? tail_width : 0) <=
               (last ? kKernelLineLimit : broken_limit);
    };
    auto new_line = [&] {
        out += line_end() + indent_to(open, tabs);
        col = open;
    };

    for (size_t i = 0; i < call.args.size(); ++i) {
        const bool last = i + 1 == call.args.size();
        const std::string end = last ? ")" : ",";
        const std::string sep = i ? " " : "";
        const std::string whole = join_terms(call.args[i]) + end;
        if (fits(col, sep + whole, last)) {
            out += sep + whole;
            col += static_cast<unsigned>(sep.size() + whole.size());
            continue;
        }
        if (i > 0)
            new_line();
        if (fits(col, whole, last)) {
            out += whole;
            col += static_cast<unsigned>(whole.size());
            continue;
        }
        // Still too long: one term per line, each broken line ending in its '+'.
        const auto& terms = call.args[i];
        for (size_t t = 0; t < terms.size(); ++t) {
            const bool last_term = t + 1 == terms.size();
            const std::string piece = terms[t] + (last_term ? end : " +");
            if (t > 0 && !fits(col, " " + piece, last && last_term))
                new_line();
            else if (t > 0)
                out += " ", ++col;
            out += piece;
            col += static_cast<unsigned>(piece.size());
        }
    }
    return out;
}

std::string flat_call(const CallText& call) {
    std::string out = call.callee + "(";
    for (size_t i = 0; i < call.args.size(); ++i)
        out += (i ? ", " : "") + join_terms(call.args[i]);
    return out + ")";
}

std::optional<std::string> comment_in_usec(std::string_view comment) {
    static const std::regex unit(R"(\b(msecs?|ms|milliseconds?|millisecs?)\b)", std::regex::icase);
    const std::string text(comment);
    std::string out;
    auto last = text.cbegin();
    bool changed = false;
    for (std::sregex_iterator it(text.begin(), text.end(), unit), end; it != end; ++it) {
        std::string word = it->str();
        std::string lower;
        for (char c : word)
            lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string replacement;
        if (lower.rfind("milli", 0) == 0)
            replacement = "micro" + lower.substr(5);
        else
            replacement = "u" + lower.substr(1);
        out.append(last, text.cbegin() + it->position());
        out += match_case(replacement, word);
        last = text.cbegin() + it->position() + it->length();
        changed = true;
    }
    if (!changed)
        return std::nullopt;
    out.append(last, text.cend());
    return out;
}

bool name_says_milliseconds(std::string_view name) {
    std::string upper;
    for (char c : name)
        upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    static const std::regex ms_part(
        R"((^|_)(MS|MSEC|MSECS|MILLISEC|MILLISECS|MILLISECONDS?)(_|$))");
    return std::regex_search(upper, ms_part);
}

bool fully_parenthesised(std::string_view expr) {
    if (expr.size() < 2 || expr.front() != '(' || expr.back() != ')')
        return false;
    int depth = 0;
    for (size_t i = 0; i < expr.size(); ++i) {
        if (expr[i] == '(')
            ++depth;
        else if (expr[i] == ')' && --depth == 0 && i + 1 != expr.size())
            return false; // "(a) + (b)": the first pair closes early
    }
    return depth == 0;
}

bool needs_parens_before_multiply(std::string_view expr) {
    if (fully_parenthesised(expr))
        return false;
    int depth = 0;
    bool seen_operand = false;
    for (char c : expr) {
        if (c == '(' || c == '[') {
            ++depth;
        } else if (c == ')' || c == ']') {
            --depth;
        } else if (depth == 0 &&
                   std::string_view("+-<>&|^?:=!,").find(c) != std::string_view::npos) {
            // A leading sign is unary and binds tighter than '*'.
            if (seen_operand || (c != '-' && c != '+' && c != '!'))
                return true;
        }
        if (!std::isspace(static_cast<unsigned char>(c)))
            seen_operand = true;
    }
    return false;
}

bool is_single_token(std::string_view expr) {
    if (expr.empty())
        return false;
    for (char c : expr)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            return false;
    return true;
}

} // namespace ksweep
