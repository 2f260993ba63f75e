// The loop a sleep paces, as the semantic engine read it from the AST (rewrite/loop_analysis.h):
// what ends it (a count of tries, a time, only a condition), what it waits for, and, for a
// count-ended loop, its time budget and whether it has the shape of the tree's iopoll helpers.
// A sleep in a loop that gives up after N tries is a driver's timeout: rewriting the sleep
// alone changes it, and nothing ksweep writes may do that without saying so.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksweep {

// Unknown: not analysed (no AST: --lexical-only, a failed parse); None: not in a loop.
enum class LoopEnd { Unknown, None, Count, Time, Condition };

std::string_view to_string(LoopEnd e); // "unknown", "none", "count", "time", "condition"

// What the loop waits for: the value it reads each time round and the test that ends the wait.
struct LoopWait {
    std::string reader;    // the reading call's callee: "regmap_read", "readl", "inb", "smn_read"
    std::string call;      // its text, "regmap_read(ak8974->map, AK8974_STATUS, &val)"
    std::string value;     // the variable read into ("val"); "" when the test reads directly
    std::string condition; // the test as written, "val & AK8974_STATUS_DRDY"
};

// A count-ended loop that read_poll_timeout() and its family can replace, in the file's text:
// offsets and the pieces the planner writes the poll from (rewrite/iopoll_rewrite.h).
struct IopollShape {
    unsigned loop_begin = 0, loop_end = 0; // the loop statement (a do-while's ';' included)
    // Return: `if (COND) return SUCCESS;` ends the wait and running out falls through to the
    // code after the loop; Break: `if (COND) break;`, and the statement after the loop tests the
    // counter for running out (its condition [test_begin, test_end) becomes the poll).
    enum class Exit { Return, Break } exit = Exit::Return;
    std::string success;                   // Return: what it returns when the wait is over
    unsigned test_begin = 0, test_end = 0; // Break: the exhaustion test's condition
    std::string op;                        // the read: "readl", "regmap_read", "i2c_smbus_read..."
    std::vector<std::string> args;         // its arguments as written (regmap_read: map, reg)
    std::string value;                     // the variable it reads into
    std::string condition;                 // the test that ends the wait, as written
    bool sleep_first = false;              // the loop sleeps before it reads
    std::string status;                    // regmap_read(): the variable its status goes to
    // A test that reads the device itself (`if (inb(port) & 0x08)`): `value` is a new
    // variable, whose declaration ("u8 val;") goes at the start of the line `declare_at` (after
    // the block's declarations, or, alone: after its '{', with a blank line after it).
    std::string declaration;
    unsigned declare_at = 0;
    bool declaration_alone = false;
    // The counter's own declaration and initialisation, deleted with the loop: [begin, end).
    std::vector<std::pair<unsigned, unsigned>> removals;
};

struct LoopInfo {
    LoopEnd ends_by = LoopEnd::Unknown;
    std::string statement; // "for", "while", "do"
    unsigned line = 0;     // of the loop statement
    // How many times the loop runs this sleep at most, when its count is a constant.
    std::optional<long long> tries;
    std::string tries_text; // the count as written: "2", "ACP_PSP_TIMEOUT_COUNTER", "retries"
    std::string counter;    // the variable that counts
    std::optional<LoopWait> waits_for;
    std::string note; // Unknown: why; otherwise what else is worth saying ("also ends by time")
    std::optional<IopollShape> iopoll;
    std::string not_iopoll; // a count-ended loop without the iopoll shape: what stops it
    // The longest the loop sleeps before it gives up: tries x the sleep's predicted length, at
    // HZ 100, 250 and 1000 (count-ended loops with a constant count; judge_finding fills it).
    std::vector<std::pair<int, double>> budget_ms_by_hz;

    bool count_ended() const { return ends_by == LoopEnd::Count; }
    // The budget at `hz` (0 when not known).
    double budget_ms(int hz) const;
};

} // namespace ksweep
