#include "rewrite/int_eval.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>

namespace ksweep {

namespace {

using clang::BinaryOperator;
using clang::UnaryOperator;
using llvm::APSInt;

bool is_integer(clang::QualType t) {
    return t->isIntegralOrEnumerationType();
}

// The variable a `x`, `(x)` or an lvalue cast of one names.
const clang::ValueDecl* named_variable(const clang::Expr* e) {
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts()))
        return ref->getDecl();
    return nullptr;
}

} // namespace

std::optional<long long> fold_int(const clang::Expr* e, clang::ASTContext& ctx) {
    clang::Expr::EvalResult result;
    if (e && !e->isValueDependent() && e->EvaluateAsInt(result, ctx))
        return result.Val.getInt().getExtValue();
    return std::nullopt;
}

APSInt IntEnv::fit(const APSInt& value, clang::QualType type) const {
    if (type->isBooleanType())
        return APSInt(llvm::APInt(ctx_.getIntWidth(type), value.getBoolValue() ? 1 : 0), true);
    const unsigned width = ctx_.getIntWidth(type);
    APSInt out = value.extOrTrunc(width);
    out.setIsUnsigned(type->isUnsignedIntegerOrEnumerationType());
    return out;
}

void IntEnv::bind(const clang::ValueDecl* var, const APSInt& value) {
    values_[var] = fit(value, var->getType());
}

void IntEnv::bind(const clang::ValueDecl* var, long long value) {
    bind(var, APSInt(llvm::APInt(64, static_cast<uint64_t>(value), true), false));
}

std::optional<APSInt> IntEnv::value_of(const clang::ValueDecl* var) const {
    auto it = values_.find(var);
    return it == values_.end() ? std::nullopt : std::optional<APSInt>(it->second);
}

bool IntEnv::mentions_bound(const clang::Expr* e) const {
    struct Finder : clang::RecursiveASTVisitor<Finder> {
        const IntEnv* env = nullptr;
        bool found = false;
        bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
            found = found || env->is_bound(ref->getDecl());
            return !found;
        }
    } finder;
    finder.env = this;
    finder.TraverseStmt(const_cast<clang::Expr*>(e));
    return finder.found;
}

std::optional<APSInt> IntEnv::eval_closed(const clang::Expr* e) const {
    clang::Expr::EvalResult result;
    if (e->isValueDependent() || !is_integer(e->getType()) || !e->EvaluateAsInt(result, ctx_))
        return std::nullopt;
    return fit(result.Val.getInt(), e->getType());
}

std::optional<APSInt> IntEnv::assign(const clang::Expr* target, const APSInt& value) {
    const clang::ValueDecl* var = named_variable(target);
    if (!var || !is_integer(var->getType()))
        return std::nullopt;
    bind(var, value);
    return values_.at(var);
}

std::optional<APSInt> IntEnv::eval(const clang::Expr* e) {
    if (!e)
        return std::nullopt;
    if (!mentions_bound(e))
        return eval_closed(e);
    e = e->IgnoreParens();
    const clang::QualType type = e->getType();

    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e))
        return value_of(ref->getDecl());
    if (const auto* cast = llvm::dyn_cast<clang::CastExpr>(e)) {
        switch (cast->getCastKind()) {
        case clang::CK_LValueToRValue:
        case clang::CK_NoOp:
        case clang::CK_IntegralCast:
        case clang::CK_IntegralToBoolean:
            if (auto v = eval(cast->getSubExpr()); v && is_integer(type))
                return fit(*v, type);
            return std::nullopt;
        default:
            return std::nullopt;
        }
    }
    if (const auto* u = llvm::dyn_cast<UnaryOperator>(e)) {
        const clang::Expr* sub = u->getSubExpr();
        auto v = eval(sub);
        if (!v)
            return std::nullopt;
        const APSInt one = fit(APSInt(llvm::APInt(64, 1), true), sub->getType());
        switch (u->getOpcode()) {
        case clang::UO_PreInc:
            return assign(sub, *v + one);
        case clang::UO_PreDec:
            return assign(sub, *v - one);
        case clang::UO_PostInc:
            return assign(sub, *v + one) ? std::optional<APSInt>(*v) : std::nullopt;
        case clang::UO_PostDec:
            return assign(sub, *v - one) ? std::optional<APSInt>(*v) : std::nullopt;
        case clang::UO_Plus:
            return fit(*v, type);
        case clang::UO_Minus:
            return fit(-*v, type);
        case clang::UO_Not:
            return fit(~*v, type);
        case clang::UO_LNot:
            return fit(APSInt(llvm::APInt(32, v->isZero() ? 1 : 0), false), type);
        default:
            return std::nullopt;
        }
    }
    if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(e)) {
        auto cond = eval(c->getCond());
        if (!cond)
            return std::nullopt;
        auto v = eval(cond->isZero() ? c->getFalseExpr() : c->getTrueExpr());
        return v ? std::optional<APSInt>(fit(*v, type)) : std::nullopt;
    }
    const auto* b = llvm::dyn_cast<BinaryOperator>(e);
    if (!b)
        return std::nullopt;
    const auto op = b->getOpcode();
    if (op == clang::BO_LAnd || op == clang::BO_LOr) {
        auto l = eval(b->getLHS());
        if (!l)
            return std::nullopt;
        const bool decided = op == clang::BO_LAnd ? l->isZero() : !l->isZero();
        if (decided)
            return fit(APSInt(llvm::APInt(32, op == clang::BO_LOr ? 1 : 0), false), type);
        auto r = eval(b->getRHS());
        if (!r)
            return std::nullopt;
        return fit(APSInt(llvm::APInt(32, r->isZero() ? 0 : 1), false), type);
    }
    if (op == clang::BO_Comma) {
        if (!eval(b->getLHS()))
            return std::nullopt;
        return eval(b->getRHS());
    }
    if (op == clang::BO_Assign) {
        auto r = eval(b->getRHS());
        return r ? assign(b->getLHS(), *r) : std::nullopt;
    }
    if (const auto* ca = llvm::dyn_cast<clang::CompoundAssignOperator>(b)) {
        auto l = eval(b->getLHS());
        auto r = eval(b->getRHS());
        if (!l || !r)
            return std::nullopt;
        const clang::QualType ct = ca->getComputationLHSType();
        const APSInt lc = fit(*l, ct), rc = fit(*r, ct);
        std::optional<APSInt> result;
        switch (op) {
        case clang::BO_AddAssign:
            result = lc + rc;
            break;
        case clang::BO_SubAssign:
            result = lc - rc;
            break;
        case clang::BO_MulAssign:
            result = lc * rc;
            break;
        case clang::BO_DivAssign:
            if (rc.isZero())
                return std::nullopt;
            result = lc / rc;
            break;
        default:
            return std::nullopt;
        }
        return assign(b->getLHS(), *result);
    }
    auto l = eval(b->getLHS());
    auto r = eval(b->getRHS());
    if (!l || !r)
        return std::nullopt;
    if (b->isComparisonOp()) {
        // Both sides already have their common type (the AST's implicit casts).
        const APSInt lc = fit(*l, b->getLHS()->getType());
        const APSInt rc = fit(*r, b->getLHS()->getType());
        bool truth = false;
        switch (op) {
        case clang::BO_LT:
            truth = lc < rc;
            break;
        case clang::BO_GT:
            truth = lc > rc;
            break;
        case clang::BO_LE:
            truth = lc <= rc;
            break;
        case clang::BO_GE:
            truth = lc >= rc;
            break;
        case clang::BO_EQ:
            truth = lc == rc;
            break;
        case clang::BO_NE:
            truth = lc != rc;
            break;
        default:
            return std::nullopt;
        }
        return fit(APSInt(llvm::APInt(32, truth ? 1 : 0), false), type);
    }
    if (op == clang::BO_Shl || op == clang::BO_Shr) {
        const APSInt lc = fit(*l, type);
        const uint64_t by = r->getLimitedValue();
        if (by >= lc.getBitWidth())
            return std::nullopt;
        return op == clang::BO_Shl ? fit(lc << static_cast<unsigned>(by), type)
                                   : fit(lc >> static_cast<unsigned>(by), type);
    }
    const APSInt lc = fit(*l, type), rc = fit(*r, type);
    switch (op) {
    case clang::BO_Add:
        return lc + rc;
    case clang::BO_Sub:
        return lc - rc;
    case clang::BO_Mul:
        return lc * rc;
    case clang::BO_Div:
        return rc.isZero() ? std::nullopt : std::optional<APSInt>(lc / rc);
    case clang::BO_Rem:
        return rc.isZero() ? std::nullopt : std::optional<APSInt>(lc % rc);
    case clang::BO_And:
        return lc & rc;
    case clang::BO_Or:
        return lc | rc;
    case clang::BO_Xor:
        return lc ^ rc;
    default:
        return std::nullopt;
    }
}

std::optional<bool> IntEnv::truth(const clang::Expr* e, bool unknown_is) {
    e = e->IgnoreParenImpCasts();
    if (const auto* b = llvm::dyn_cast<BinaryOperator>(e);
        b && (b->getOpcode() == clang::BO_LAnd || b->getOpcode() == clang::BO_LOr)) {
        const bool is_and = b->getOpcode() == clang::BO_LAnd;
        auto l = truth(b->getLHS(), unknown_is);
        const bool left = l.value_or(unknown_is);
        if (is_and ? !left : left)
            return l ? l : std::optional<bool>(left);
        auto r = truth(b->getRHS(), unknown_is);
        if (!l && !r)
            return std::nullopt;
        return r.value_or(unknown_is);
    }
    if (const auto* u = llvm::dyn_cast<UnaryOperator>(e); u && u->getOpcode() == clang::UO_LNot) {
        // The unknown part stays unknown: the caller's assumption is about the whole test.
        if (!mentions_bound(u->getSubExpr()))
            return std::nullopt;
        auto v = truth(u->getSubExpr(), !unknown_is);
        return v ? std::optional<bool>(!*v) : std::nullopt;
    }
    if (!mentions_bound(e))
        return std::nullopt; // the device's part of the test: the caller assumes
    auto v = eval(e);
    return v ? std::optional<bool>(!v->isZero()) : std::nullopt;
}

} // namespace ksweep
