// What a tree's own sources say about its sleep functions, read from the code and the
// documentation folder rather than inferred from the version number: whether msleep() adds the
// historical extra jiffy (its body in kernel/time/timer.c, or kernel/time/sleep_timeout.c from
// v6.13 on), whether usleep_range_state() exists, and which timers document the tree has.
// fsleep()'s behaviour is not read here but evaluated with clang on the tree's own delay.h
// (rewrite/sleep_eval.h: evaluated_sleep_api() fills these fields in).
#pragma once

#include <optional>
#include <string>

namespace ksweep::kbuild {

// One fact about the tree and where it was read ("include/linux/delay.h:63"); source empty when
// the tree does not say (file missing / pattern not found) — then the caller says so, with the
// fact's note (one line: what was looked for and what was found instead).
enum class FsleepKind {
    Absent,       // delay.h has no fsleep() (trees before v5.8)
    DoubleRange,  // v5.8-v6.12: usleep_range(us, 2 * us) up to 20 ms
    QuarterSlack, // v6.13+: a quarter of slack at most below four ticks, msleep() above
    Unknown       // not evaluated (kbuild alone never evaluates it), or neither
};

struct SleepApi {
    FsleepKind fsleep = FsleepKind::Unknown;
    std::string fsleep_source;
    // msecs_to_jiffies(msecs) + 1 in msleep()'s body (kernel/time/timer.c, or
    // kernel/time/sleep_timeout.c in v6.13+)
    std::optional<bool> msleep_extra_jiffy;
    std::string msleep_source;
    bool has_usleep_range_state = false;
    std::string usleep_range_state_source;
    // "Documentation/timers/delay_sleep_functions.rst" (preferred when present) or
    // "Documentation/timers/timers-howto.rst" (".txt" in old trees), "" if none
    std::string timers_doc;

    // Why a fact is unknown or absent, one line each ("" when the tree said it plainly):
    // usable as a note beside the caller's output.
    std::string fsleep_note, msleep_note, usleep_range_state_note, timers_doc_note;
};

// Never throws for a missing or odd tree: every fact it cannot read stays unknown with its note.
SleepApi read_sleep_api(const std::string& tree_root);

// "absent", "double-range", "quarter-slack", "unknown".
const char* to_string(FsleepKind kind);

// The parts read_sleep_api() is made of, for tests and for other headers' functions.
namespace sleep_api_detail {

// `text` with /* */ and // comments replaced by spaces (newlines kept, so offsets keep their
// line); string and character literals are left as they are.
std::string strip_comments(const std::string& text);

// The body (between its outer braces, braces excluded) of the definition of function `name` in
// comment-free `code`, and the 1-based line of the name; nullopt when `code` has no definition
// (a declaration ending in ';' is not one). `param` gets the name of the first parameter.
struct FunctionBody {
    std::string body;
    std::string param;
    int line = 0;
    size_t body_offset = 0; // of the body's first character in `code`
};
std::optional<FunctionBody> find_function(const std::string& code, const std::string& name);

// `text` without whitespace: "usleep_range(usecs, 2 * usecs)" -> "usleep_range(usecs,2*usecs)".
std::string squeeze(const std::string& text);

} // namespace sleep_api_detail

} // namespace ksweep::kbuild
