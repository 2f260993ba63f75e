// A finding is one sleep call the rule looks at: where it is, what its argument resolves to,
// how, and by which engine. Every subcommand speaks in findings.
#pragma once

#include "core/loop.h"
#include "core/rule.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ksweep {

enum class Resolution { Literal, Macro, Enum, Expression, Unresolved };
enum class Engine { Lexical, Semantic, Cocci };

std::string_view to_string(Resolution r);
std::string_view to_string(Engine e);

struct Finding {
    std::string file;  // relative to the tree root, '/'-separated
    unsigned line = 0; // 1-based, of the callee's name
    unsigned column = 0;
    std::string function; // enclosing function; empty at file scope (e.g. inside a #define)
    std::string rule;     // the rule that found it, "msleep_small"
    std::string callee;   // "msleep", "schedule_timeout_uninterruptible"
    std::string through;  // the conversion call around the argument, "msecs_to_jiffies"; or ""
    std::string call;     // source text of the whole call, "msleep(TPM_TIMEOUT)"
    std::string argument; // source text of the value, "TPM_TIMEOUT" (inside through(...))

    std::optional<long long> value; // in `unit`; empty when the argument is not a constant
    Unit unit = Unit::Milliseconds;
    // Whether the call's result is used ("ret = msleep_interruptible(5)"); empty when the
    // engine cannot tell (a call spelled in a #define).
    std::optional<bool> result_used;
    Resolution resolution = Resolution::Unresolved;
    std::string constant;   // the macro or enumerator named by the argument, if it is one name
    std::string defined_at; // "file:line" of that constant's definition (tree-relative when inside)
    Engine engine = Engine::Lexical;

    bool in_macro_body = false; // the call is spelled inside a #define
    bool inactive = false;      // inside #if 0 or a branch the configuration does not take
    std::string note;           // why a result is partial, e.g. the semantic parse failed
    // No value, yet the argument may be a constant: it names something only the semantic engine
    // can fold, and that engine did not run or could not parse the file (note says why).
    bool unevaluated = false;

    // Byte offsets in the file, for the rewriter: [call_begin, call_end) covers
    // "msleep(...)", [arg_begin, arg_end) the argument.
    unsigned call_begin = 0, call_end = 0, arg_begin = 0, arg_end = 0;

    // Filled in from the rule and the sleep model once the value is known: the sleep at the
    // scan's HZ, and at HZ 100, 250 and 1000 side by side.
    double predicted_sleep_ms = 0;
    std::vector<std::pair<int, double>> predicted_by_hz;
    bool actionable = false;

    // The loop the call paces (the semantic engine's; Unknown with a note without one).
    LoopInfo loop;

    // The request in milliseconds (500 us is 0.5), and in microseconds.
    std::optional<double> requested_ms() const;
    std::optional<long long> requested_us() const;
    // "5 ms", "500 us", "?" when unknown.
    std::string value_text() const;
};

} // namespace ksweep
