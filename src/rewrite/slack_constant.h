// Where a file's named slack constant goes and the line that defines it: after the last
// #define of the block beside the converted delay macros (or the first #define block after the
// includes), aligned like its neighbours; failing that, right after the includes.
#pragma once

#include "rewrite/macro_uses.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace ksweep {

struct SlackAnchor {
    std::vector<const MacroDefinition*> block; // the #define block it joins (empty: includes)
    unsigned after_line = 0;                   // the new line goes after this one
};

// A place before `first_use` (the first call that will name the constant) at file scope, or
// nullopt when the file has neither a #define block nor an #include before it.
std::optional<SlackAnchor> find_slack_anchor(const FileIndex& index, unsigned first_use,
                                             const std::set<std::string>& converted_macros);

struct SlackLine {
    unsigned offset = 0; // insertion point: the start of a line
    std::string text;    // whole lines, each ending in '\n'
};

// The #define of the constant. `comment_column`: where the block's comments now start, when
// the fixer realigned them; otherwise the anchor's own comment column is used.
SlackLine slack_line(const FileIndex& index, std::string_view text, const SlackAnchor& anchor,
                     const std::string& name, long long value_us,
                     std::optional<unsigned> comment_column);

} // namespace ksweep
