// A count-ended poll loop rewritten into the tree's iopoll helper: the text of the poll that
// replaces it, from the loop's shape (core/loop.h, read from the AST) and the rule's timeout.
//
//   loop that returns on success    if (!read_poll_timeout(op, val, cond, sleep_us, timeout_us,
//                                                          sleep_first, args))
//                                           return 0;
//   loop that breaks, then tests    if (readx_poll_timeout(op, addr, val, cond, ...)) {
//   whether it ran out                      <what the test after the loop did>
//   regmap_read() with its status   ret = regmap_read_poll_timeout(map, reg, val, cond, ...);
//   returned as it is               if (ret != -ETIMEDOUT)
//                                           return ret;
//
// The function's errors stay as they were: the code after the loop (its timeout path) is kept
// word for word, and only the test that told running out from success changes.
#pragma once

#include "core/finding.h"
#include "core/rule.h"
#include "rewrite/planner.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ksweep {

struct IopollRewrite {
    std::vector<Edit> edits; // the loop, its counter's lines, the test after it
    std::string helper;      // "read_poll_timeout", "readl_poll_timeout", ...
    std::string call;        // the poll on one line, as messages quote it
    long long sleep_us = 0;
    long long timeout_us = 0; // the figure the timeout argument is worth
    std::string timeout_why;  // where it comes from, one phrase
    bool needs_iopoll_h = false;
};

// Whether the tree defines a macro (read_poll_timeout in include/linux/iopoll.h).
using TreeDefines = std::function<bool(const std::string& header, const std::string& macro)>;

// The poll for the site's loop, or why there is none (the loop has no iopoll shape, its count is
// unknown, the tree lacks the helper).
struct IopollPlan {
    std::optional<IopollRewrite> rewrite;
    std::string why_not;
};
IopollPlan plan_iopoll(const Rule& rule, const Finding& f, const std::string& text, int tree_hz,
                       const TreeDefines& defines);

// The text's `#include <linux/...>` block with <linux/iopoll.h> added in order: the insertion,
// or nullopt when the file includes it already (or has no <linux/...> include to sort it among).
std::optional<Edit> iopoll_include(const std::string& text);

} // namespace ksweep
