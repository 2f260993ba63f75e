// Kernel coding style for the text the fixer writes: columns with 8-wide tabs, indentation
// made of tabs then spaces, calls wrapped at 80 columns with continuation lines aligned to the
// open parenthesis, unit comments, and when an expression needs parentheses.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ksweep {

constexpr unsigned kKernelLineLimit = 80;

// Offset where the line holding `offset` starts.
unsigned line_start(std::string_view text, unsigned offset);
// Display column (0-based, tabs to the next multiple of 8) of `offset` on its line.
unsigned column_at(std::string_view text, unsigned offset);
// Display width of a piece of text that starts at `column`.
unsigned width_from(std::string_view piece, unsigned column);
// Whitespace reaching `column` from column 0: tabs then spaces, or only spaces.
std::string indent_to(unsigned column, bool tabs);
// Whitespace from column `from` to column `to` (at least one character): tabs when `tabs`.
std::string pad_between(unsigned from, unsigned to, bool tabs);
// Whether the line holding `offset` is indented with tabs (true also for an unindented line).
bool line_uses_tabs(std::string_view text, unsigned offset);

// A call to lay out: callee(arg, arg, ...), each argument a sum of terms ("A", "A + B").
struct CallText {
    std::string callee;
    std::vector<std::vector<std::string>> args; // args[i] = terms joined by " + "
};

// Inside a #define every broken line must end in '\'; at `column` when the macro's other
// lines align theirs there, else right after a space.
struct Continuation {
    bool needed = false;
    unsigned column = 0;
};

// The call's text starting at `column`, followed on its last line by `tail_width` columns of
// what already follows it. Arguments that do not fit within 80 columns move to continuation
// lines aligned with the open parenthesis; a sum breaks after its '+'.
std::string layout_call(const CallText& call, unsigned column, unsigned tail_width, bool tabs,
                        Continuation continuation = {});
// The same call on one line, as a message quotes it: "usleep_range(5000, 5000 + FOO_RANGE)".
std::string flat_call(const CallText& call);

// "/* msec */" -> "/* usec */", "// delay in ms" -> "// delay in us"; nullopt when the comment
// names no millisecond unit.
std::optional<std::string> comment_in_usec(std::string_view comment);
// FOO_DELAY_MS, FOO_MSEC, ...: a name that says milliseconds cannot hold microseconds.
bool name_says_milliseconds(std::string_view name);

// Whether `expr` is wrapped in one pair of parentheses that spans all of it.
bool fully_parenthesised(std::string_view expr);
// Whether `expr * k` would bind differently from `(expr) * k`: true when an operator weaker
// than '*' appears outside parentheses.
bool needs_parens_before_multiply(std::string_view expr);
// Whether `expr` is one token (identifier or number).
bool is_single_token(std::string_view expr);

} // namespace ksweep
