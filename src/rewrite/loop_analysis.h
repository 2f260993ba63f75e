// The loop around a sleep, read from clang's AST: is the call in a loop, what ends the loop (a
// counter, a time, only a condition), how many times it sleeps when the count is a constant,
// what it waits for (the value it reads and the test on it), and whether it has the shape
// read_poll_timeout() and its family replace (core/loop.h: the pieces, as offsets and text of
// the main file). The semantic engine calls it for every site it records.
#pragma once

#include "core/loop.h"

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
} // namespace clang

namespace ksweep {

LoopInfo analyse_loop(const clang::CallExpr& sleep, const clang::FunctionDecl& function,
                      clang::ASTContext& ctx);

// Of two expansions of one call spelled in a macro: the loop that bounds the wait more
// tightly (a count over a time over a condition), so that a rewrite of the body is judged by
// its tightest use.
LoopInfo tighter_loop(const LoopInfo& a, const LoopInfo& b);

} // namespace ksweep
