#include "rewrite/slack_constant.h"

#include "rewrite/kernel_style.h"

namespace ksweep {

namespace {

constexpr const char* kComment = "/* usleep_range() slack, usec */";
constexpr const char* kPurposeComment = "/* usleep_range() slack */";
constexpr const char* kUnitComment = "/* usec */";

bool at_file_scope(const FileIndex& index, const Directive& d) {
    return d.brace_depth == 0 && d.cond_depth == index.base_cond_depth();
}

// Whether the whitespace between two offsets holds a tab.
bool has_tab(std::string_view text, unsigned from, unsigned to) {
    return text.substr(from, to - from).find('\t') != std::string_view::npos;
}

} // namespace

std::optional<SlackAnchor> find_slack_anchor(const FileIndex& index, unsigned first_use,
                                             const std::set<std::string>& converted_macros) {
    const auto& directives = index.directives();
    // The includes that come before the first use, at file scope.
    unsigned last_include_line = 0;
    for (const Directive& d : directives)
        if (d.name == "include" && d.end < first_use && at_file_scope(index, d))
            last_include_line = d.end_line;

    std::optional<SlackAnchor> beside_converted, first_after_includes;
    for (const auto& block : define_blocks(index)) {
        const Directive& first = directives[block.front()->directive];
        const Directive& last = directives[block.back()->directive];
        if (last.end >= first_use || !at_file_scope(index, first))
            continue;
        bool object_like = false, holds_converted = false;
        for (const MacroDefinition* m : block) {
            object_like |= !m->function_like;
            holds_converted |= converted_macros.count(m->name) > 0;
        }
        if (!object_like)
            continue;
        SlackAnchor anchor{block, last.end_line};
        if (holds_converted)
            beside_converted = anchor;
        if (!first_after_includes && first.line > last_include_line)
            first_after_includes = anchor;
    }
    if (beside_converted)
        return beside_converted;
    if (first_after_includes)
        return first_after_includes;
    if (last_include_line)
        return SlackAnchor{{}, last_include_line};
    return std::nullopt;
}

SlackLine slack_line(const FileIndex& index, std::string_view text, const SlackAnchor& anchor,
                     const std::string& name, long long value_us,
                     std::optional<unsigned> comment_column) {
    SlackLine out;
    out.offset = index.line_begin(anchor.after_line + 1);
    const std::string head = "#define " + name;
    const std::string value = std::to_string(value_us);

    if (anchor.block.empty()) {
        // After the includes: a line of its own, set off by blank lines.
        const std::string line = head + "\t" + value + "\t" + kComment;
        const bool blank_next = out.offset >= text.size() || text[out.offset] == '\n';
        out.text = "\n" + line + "\n" + (blank_next ? "" : "\n");
        return out;
    }

    // Beside the last #define of the block: value and comment in the same columns.
    const MacroDefinition& last = *anchor.block.back();
    const bool body = last.body_end > last.body_begin && !last.function_like;
    const bool tabs = body ? has_tab(text, last.name_end, last.body_begin) : true;
    const unsigned value_column = body ? column_at(text, last.body_begin) : 0;

    std::string line = head;
    const unsigned head_width = width_from(head, 0);
    line += value_column > head_width ? pad_between(head_width, value_column, tabs)
                                      : std::string(tabs ? "\t" : " ");
    line += value;
    const unsigned value_end = width_from(line, 0);

    std::optional<unsigned> column = comment_column;
    bool comment_tabs = tabs;
    if (!column && last.comment_token) {
        const FileToken& c = index.tokens()[*last.comment_token];
        column = column_at(text, c.begin);
        comment_tabs = has_tab(text, last.body_end, c.begin);
    }
    const std::string pad = column && *column > value_end
                                ? pad_between(value_end, *column, comment_tabs)
                                : std::string(comment_tabs ? "\t" : " ");
    const unsigned comment_at = width_from(line + pad, 0);
    if (comment_at + std::string(kComment).size() <= kKernelLineLimit) {
        out.text = line + pad + kComment + "\n";
    } else {
        // No room beside it: say what it is for on the line above, the unit beside it.
        out.text = std::string(kPurposeComment) + "\n" + line + pad + kUnitComment + "\n";
    }
    return out;
}

} // namespace ksweep
