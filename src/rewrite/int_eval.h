// C integers as clang's AST states them, with some variables bound to values: what a loop's
// counter is after each test (loop_analysis.h), what fsleep(usecs) or read_poll_timeout() calls
// for a given sleep (sleep_eval.h).
//
// Everything that names no bound variable goes to clang's own constant evaluator
// (Expr::EvaluateAsInt: macros, enums, sizeof, a header's `static const`, TICK_NSEC at the
// parse's HZ). The few operators that touch a bound variable are done here, in the width and
// signedness of their type, side effects included (`--timeout` updates the binding).
#pragma once

#include <llvm/ADT/APSInt.h>
#include <map>
#include <optional>

namespace clang {
class ASTContext;
class Expr;
class QualType;
class ValueDecl;
} // namespace clang

namespace ksweep {

class IntEnv {
  public:
    explicit IntEnv(clang::ASTContext& ctx) : ctx_(ctx) {}

    void bind(const clang::ValueDecl* var, const llvm::APSInt& value);
    void bind(const clang::ValueDecl* var, long long value); // in the variable's type
    void unbind(const clang::ValueDecl* var) { values_.erase(var); }
    std::optional<llvm::APSInt> value_of(const clang::ValueDecl* var) const;
    bool is_bound(const clang::ValueDecl* var) const { return values_.count(var) != 0; }

    // The expression's value, applying its side effects on bound variables; nullopt when it
    // reads something unknown (a variable not bound, memory, a call).
    std::optional<llvm::APSInt> eval(const clang::Expr* e);

    // A condition's truth where the parts that cannot be evaluated are taken as `unknown_is`:
    // the operands of &&, || and ! that read the device, say, while the counter's parts are
    // evaluated (and updated) in C's order. nullopt only when nothing in it is known.
    std::optional<bool> truth(const clang::Expr* e, bool unknown_is);

    // Whether the expression reads a bound variable.
    bool mentions_bound(const clang::Expr* e) const;

    // `value` in the width and signedness of `type`.
    llvm::APSInt fit(const llvm::APSInt& value, clang::QualType type) const;

  private:
    std::optional<llvm::APSInt> eval_closed(const clang::Expr* e) const;
    std::optional<llvm::APSInt> assign(const clang::Expr* target, const llvm::APSInt& value);

    clang::ASTContext& ctx_;
    std::map<const clang::ValueDecl*, llvm::APSInt> values_;
};

// A closed expression's value by clang's evaluator, or nullopt.
std::optional<long long> fold_int(const clang::Expr* e, clang::ASTContext& ctx);

} // namespace ksweep
