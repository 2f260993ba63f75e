#include "rewrite/loop_analysis.h"

#include "rewrite/int_eval.h"
#include "rewrite/lexical_tokens.h"

#include <algorithm>
#include <cctype>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>
#include <clang/Lex/Lexer.h>
#include <map>
#include <regex>
#include <set>
#include <variant>

namespace ksweep {

namespace {

using namespace clang;
using namespace clang::ast_matchers;

// More sleeps than this and the count is not worth simulating: "more than a million".
constexpr long long kMaxTries = 1'000'000;

// Calls and variables that tell the time: a loop whose test reads one ends by a deadline.
const std::vector<llvm::StringRef> kClockCalls = {"get_jiffies_64",
                                                  "ktime_get",
                                                  "ktime_get_ns",
                                                  "ktime_get_raw",
                                                  "ktime_get_boottime",
                                                  "ktime_get_real",
                                                  "ktime_get_mono_fast_ns",
                                                  "ktime_compare",
                                                  "ktime_after",
                                                  "ktime_before",
                                                  "ktime_us_delta",
                                                  "ktime_ms_delta",
                                                  "ktime_sub",
                                                  "ktime_to_us",
                                                  "ktime_to_ms",
                                                  "local_clock",
                                                  "sched_clock",
                                                  "jiffies_to_msecs",
                                                  "jiffies_to_usecs",
                                                  "time_is_before_jiffies",
                                                  "time_is_after_jiffies"};
const std::vector<llvm::StringRef> kClockVariables = {"jiffies", "jiffies_64"};

// What the loop code shares: the AST, its source, and the function the call is in.
struct Source {
    ASTContext& ctx;
    const SourceManager& sm;
    const Stmt* body;
    const FunctionDecl& function;

    // The text of a node as the file has it (a macro use as used), on one line.
    std::string text(const Stmt* s) const {
        if (!s)
            return "";
        const CharSourceRange range = sm.getExpansionRange(s->getSourceRange());
        return squeeze(
            Lexer::getSourceText(CharSourceRange::getTokenRange(range.getBegin(), range.getEnd()),
                                 sm, ctx.getLangOpts()));
    }

    // Source text on one line: each run of blanks, newlines and continuations one space.
    static std::string squeeze(llvm::StringRef raw) {
        std::string out;
        bool space = false;
        for (char c : raw) {
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
                space = !out.empty();
                continue;
            }
            if (space)
                out += ' ';
            space = false;
            out += c;
        }
        return out;
    }

    unsigned line(const Stmt* s) const { return sm.getExpansionLineNumber(s->getBeginLoc()); }

    // [begin, end) of the node as written in the main file, macro uses included (`x &
    // POLL_DRDY`), or nullopt when it is not written there (a macro's body, a header).
    std::optional<std::pair<unsigned, unsigned>> written_range(const Stmt* s) const {
        const CharSourceRange r = sm.getExpansionRange(s->getSourceRange());
        if (!sm.isInMainFile(r.getBegin()) || !sm.isInMainFile(r.getEnd()))
            return std::nullopt;
        const SourceLocation after =
            r.isTokenRange() ? Lexer::getLocForEndOfToken(r.getEnd(), 0, sm, ctx.getLangOpts())
                             : r.getEnd();
        return std::make_pair(sm.getFileOffset(r.getBegin()), sm.getFileOffset(after));
    }

    // [begin, end) of the node in the main file, or nullopt when it is not written there
    // whole (a macro's body, a header).
    std::optional<std::pair<unsigned, unsigned>> range(const Stmt* s) const {
        const SourceLocation b = s->getBeginLoc(), e = s->getEndLoc();
        if (b.isMacroID() || e.isMacroID() || !sm.isInMainFile(b) || !sm.isInMainFile(e))
            return std::nullopt;
        const SourceLocation after = Lexer::getLocForEndOfToken(e, 0, sm, ctx.getLangOpts());
        return std::make_pair(sm.getFileOffset(b), sm.getFileOffset(after));
    }
};

bool is_loop(const Stmt* s) {
    return llvm::isa<ForStmt>(s) || llvm::isa<WhileStmt>(s) || llvm::isa<DoStmt>(s);
}

const Stmt* loop_body(const Stmt* s) {
    if (const auto* f = llvm::dyn_cast<ForStmt>(s))
        return f->getBody();
    if (const auto* w = llvm::dyn_cast<WhileStmt>(s))
        return w->getBody();
    return llvm::cast<DoStmt>(s)->getBody();
}

const Expr* loop_cond(const Stmt* s) {
    if (const auto* f = llvm::dyn_cast<ForStmt>(s))
        return f->getCond();
    if (const auto* w = llvm::dyn_cast<WhileStmt>(s))
        return w->getCond();
    return llvm::cast<DoStmt>(s)->getCond();
}

const char* loop_keyword(const Stmt* s) {
    return llvm::isa<ForStmt>(s) ? "for" : llvm::isa<WhileStmt>(s) ? "while" : "do";
}

// The statements from `root` down to `target`, both included; empty when it is not there.
bool path_to(const Stmt* root, const Stmt* target, std::vector<const Stmt*>& path) {
    if (!root)
        return false;
    path.push_back(root);
    if (root == target)
        return true;
    for (const Stmt* child : root->children())
        if (path_to(child, target, path))
            return true;
    path.pop_back();
    return false;
}

// The variables (locals and parameters) a node reads or writes.
std::set<const VarDecl*> variables_in(const Stmt* s, ASTContext& ctx) {
    std::set<const VarDecl*> out;
    if (!s)
        return out;
    for (const auto& bound : match(findAll(declRefExpr(to(varDecl().bind("v")))), *s, ctx))
        out.insert(bound.getNodeAs<VarDecl>("v"));
    return out;
}

bool mentions(const Stmt* s, const VarDecl* v, ASTContext& ctx) {
    return v && variables_in(s, ctx).count(v);
}

// Whether evaluating `e` does more than read, apart from the call `read` in it (whose
// arguments are judged on their own): an assignment, a step, another call.
bool writes_besides(const Stmt* e, const CallExpr* read) {
    if (!e || e == read)
        return false;
    if (const auto* b = llvm::dyn_cast<BinaryOperator>(e); b && b->isAssignmentOp())
        return true;
    if (const auto* u = llvm::dyn_cast<UnaryOperator>(e); u && u->isIncrementDecrementOp())
        return true;
    if (llvm::isa<CallExpr>(e) || llvm::isa<StmtExpr>(e))
        return true;
    return std::any_of(e->child_begin(), e->child_end(),
                       [&](const Stmt* child) { return writes_besides(child, read); });
}

// Variables counted up or down by one step (++, --, += N, -= N) anywhere in the node.
std::set<const VarDecl*> stepped_in(const Stmt* s, ASTContext& ctx) {
    std::set<const VarDecl*> out;
    if (!s)
        return out;
    const auto var =
        ignoringParenImpCasts(declRefExpr(to(varDecl(hasType(isInteger())).bind("v"))));
    const auto step =
        stmt(anyOf(unaryOperator(hasAnyOperatorName("++", "--"), hasUnaryOperand(var)),
                   binaryOperator(hasAnyOperatorName("+=", "-="), hasLHS(var))));
    for (const auto& bound : match(findAll(step), *s, ctx))
        out.insert(bound.getNodeAs<VarDecl>("v"));
    return out;
}

// Variables the node writes to, by any assignment or step.
std::set<const VarDecl*> written_in(const Stmt* s, ASTContext& ctx) {
    std::set<const VarDecl*> out = stepped_in(s, ctx);
    if (!s)
        return out;
    const auto var = ignoringParenImpCasts(declRefExpr(to(varDecl().bind("v"))));
    for (const auto& bound :
         match(findAll(binaryOperator(isAssignmentOperator(), hasLHS(var))), *s, ctx))
        out.insert(bound.getNodeAs<VarDecl>("v"));
    return out;
}

// Whether the node reads the clock: jiffies, or a ktime/clock call (time_after() and friends
// are macros over jiffies, so they are found through it).
bool reads_clock(const Stmt* s, ASTContext& ctx) {
    if (!s)
        return false;
    const auto clock = stmt(anyOf(declRefExpr(to(varDecl(hasAnyName(kClockVariables)))),
                                  callExpr(callee(functionDecl(hasAnyName(kClockCalls))))));
    return !match(findAll(clock), *s, ctx).empty();
}

// One way out of the loop: its own test, or a break/return/goto in its body and the `if`
// condition that leads there.
struct Exit {
    const Stmt* stmt = nullptr; // the break/return/goto; nullptr for the loop's own test
    const Expr* test = nullptr; // the condition that takes it (nullptr: unconditional)
    const IfStmt* branch = nullptr;
    bool on_else = false; // taken when the test is false
};

void collect_exits(const Stmt* s, const IfStmt* branch, bool on_else, bool in_inner_loop,
                   bool in_switch, std::vector<Exit>& out) {
    if (!s)
        return;
    const Expr* test = branch ? branch->getCond() : nullptr;
    if (llvm::isa<BreakStmt>(s)) {
        if (!in_inner_loop && !in_switch)
            out.push_back({s, test, branch, on_else});
        return;
    }
    if (llvm::isa<ReturnStmt>(s) || llvm::isa<GotoStmt>(s)) {
        out.push_back({s, test, branch, on_else});
        return;
    }
    if (const auto* i = llvm::dyn_cast<IfStmt>(s)) {
        collect_exits(i->getThen(), i, false, in_inner_loop, in_switch, out);
        collect_exits(i->getElse(), i, true, in_inner_loop, in_switch, out);
        return;
    }
    if (is_loop(s)) {
        collect_exits(loop_body(s), branch, on_else, true, in_switch, out);
        return;
    }
    if (llvm::isa<SwitchStmt>(s)) {
        collect_exits(llvm::cast<SwitchStmt>(s)->getBody(), branch, on_else, in_inner_loop, true,
                      out);
        return;
    }
    if (llvm::isa<Expr>(s))
        return; // statement expressions in conditions: not the loop's own exits
    for (const Stmt* child : s->children())
        collect_exits(child, branch, on_else, in_inner_loop, in_switch, out);
}

// "!(x & y)" -> "x & y", "!done" -> "done", "x" -> "!x", "a < b" -> "!(a < b)".
std::string negated(const std::string& test) {
    if (test.rfind("!(", 0) == 0 && test.back() == ')') {
        int depth = 0;
        bool whole = true;
        for (size_t i = 1; i + 1 < test.size(); ++i) {
            depth += test[i] == '(' ? 1 : test[i] == ')' ? -1 : 0;
            if (depth == 0) {
                whole = false;
                break;
            }
        }
        if (whole)
            return test.substr(2, test.size() - 3);
    }
    const bool word = std::all_of(test.begin(), test.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '>' || c == '-' ||
               c == '.';
    });
    if (test.rfind('!', 0) == 0 && test.find(' ') == std::string::npos)
        return test.substr(1);
    return word ? "!" + test : "!(" + test + ")";
}

// The operands of a test joined by && and ||, each on its own; a macro's own && (time_before()'s
// typechecks) stays inside the macro's use.
void split_test(const Expr* e, std::vector<const Expr*>& out) {
    const Expr* bare = e->IgnoreParenImpCasts();
    if (const auto* b = llvm::dyn_cast<BinaryOperator>(bare);
        b && (b->getOpcode() == BO_LAnd || b->getOpcode() == BO_LOr) &&
        !b->getOperatorLoc().isMacroID()) {
        split_test(b->getLHS(), out);
        split_test(b->getRHS(), out);
        return;
    }
    out.push_back(e);
}

// The statements of a loop body in order (a body that is one statement is a list of one).
std::vector<const Stmt*> statements_of(const Stmt* body) {
    if (const auto* c = llvm::dyn_cast_or_null<CompoundStmt>(body))
        return {c->body_begin(), c->body_end()};
    return body ? std::vector<const Stmt*>{body} : std::vector<const Stmt*>{};
}

// `if (...) break;`, `if (...) { return x; }`: the exit an if's then-branch is, alone.
const Stmt* lone_exit(const Stmt* then) {
    if (const auto* c = llvm::dyn_cast_or_null<CompoundStmt>(then))
        then = c->size() == 1 ? c->body_front() : nullptr;
    if (then &&
        (llvm::isa<BreakStmt>(then) || llvm::isa<ReturnStmt>(then) || llvm::isa<GotoStmt>(then)))
        return then;
    return nullptr;
}

// What one pass of the body does to the counter, in order.
struct Event {
    enum Kind { Update, ExitTest, Sleep, WaitTest } kind;
    const Expr* expr = nullptr; // Update: the expression; ExitTest/WaitTest: the condition
};

// Where the counter starts: set by the for's init, or by the last write before the loop, or the
// variable's own initialiser; with the statements that set it (for iopoll, which deletes them).
struct Start {
    const Expr* value = nullptr;     // nullptr: not known
    const Stmt* statement = nullptr; // `n = 2;` before the loop
    const DeclStmt* declared = nullptr;
    std::string why; // value unknown: why
};

class LoopReader {
  public:
    LoopReader(Source src, const Stmt* loop, const CallExpr& sleep,
               const std::vector<const Stmt*>& path)
        : src_(src), loop_(loop), sleep_(sleep), path_(path) {}

    LoopInfo read();

  private:
    void find_counter_and_kind();
    void find_wait();
    void count_tries();
    Start counter_start() const;
    std::optional<std::vector<Event>> events(std::string& why) const;
    std::optional<long long> simulate(const std::vector<Event>& events, const Start& start,
                                      std::string& why, std::vector<llvm::APSInt>* at_waits,
                                      std::optional<llvm::APSInt>* at_end) const;
    std::variant<IopollShape, std::string> iopoll_shape(const Start& start) const;
    std::string counter_used_elsewhere(const Start& start, const Stmt* exhaustion) const;
    bool only_declaration(const DeclStmt* d) const;
    std::string read_into_new_variable(const CallExpr& read, const IfStmt& test,
                                       IopollShape& shape) const;
    std::optional<std::pair<unsigned, unsigned>> line_of(const Stmt* s) const;
    std::optional<std::pair<unsigned, unsigned>> declarator_of(const DeclStmt* d,
                                                               const VarDecl* v) const;

    Source src_;
    const Stmt* loop_;
    const CallExpr& sleep_;
    const std::vector<const Stmt*>& path_;
    std::vector<Exit> exits_;
    std::vector<const Expr*> tests_; // the loop's own test and every exit's condition
    const VarDecl* counter_ = nullptr;
    LoopInfo info_;
};

LoopInfo LoopReader::read() {
    info_.statement = loop_keyword(loop_);
    info_.line = src_.line(loop_);
    if (const Expr* cond = loop_cond(loop_))
        exits_.push_back({nullptr, cond, nullptr, false});
    collect_exits(loop_body(loop_), nullptr, false, false, false, exits_);
    for (const Exit& e : exits_)
        if (e.test)
            tests_.push_back(e.test);
    find_counter_and_kind();
    find_wait();
    if (info_.ends_by == LoopEnd::Count)
        count_tries();
    return info_;
}

void LoopReader::find_counter_and_kind() {
    std::set<const VarDecl*> stepped = stepped_in(loop_, src_.ctx);
    if (const auto* f = llvm::dyn_cast<ForStmt>(loop_))
        for (const VarDecl* v : stepped_in(f->getInc(), src_.ctx))
            stepped.insert(v);
    bool timed = false;
    // The loop's own test first: `for (i = 0; i < n; i++)` counts with i even if a body test
    // names another stepped variable.
    for (const Expr* test : tests_) {
        for (const VarDecl* v : variables_in(test, src_.ctx))
            if (!counter_ && stepped.count(v))
                counter_ = v;
        timed = timed || reads_clock(test, src_.ctx);
        // A test on a variable the loop sets from the clock ("elapsed > timeout").
        for (const VarDecl* v : variables_in(test, src_.ctx)) {
            const auto set_from_clock = binaryOperator(
                isAssignmentOperator(),
                hasLHS(ignoringParenImpCasts(declRefExpr(to(varDecl(equalsNode(v)))))),
                hasRHS(expr().bind("rhs")));
            for (const auto& bound : match(findAll(set_from_clock), *loop_, src_.ctx))
                timed = timed || reads_clock(bound.getNodeAs<Expr>("rhs"), src_.ctx);
        }
    }
    if (counter_) {
        info_.ends_by = LoopEnd::Count;
        info_.counter = counter_->getNameAsString();
        if (timed)
            info_.note = "it also ends by a time";
    } else if (timed) {
        info_.ends_by = LoopEnd::Time;
    } else {
        info_.ends_by = LoopEnd::Condition;
    }
}

void LoopReader::find_wait() {
    // What the body reads into variables: `v = f(...)`, `*v = f(...)`, `T v = f(...)`,
    // `f(..., &v)`.
    struct Read {
        const CallExpr* call;
        bool out_param;     // the value comes back through &v
        bool deref = false; // written through the pointer v
    };
    std::map<const VarDecl*, Read> reads;
    const Stmt* body = loop_body(loop_);
    if (body) {
        const auto var = declRefExpr(to(varDecl().bind("v")));
        for (const auto& b :
             match(findAll(callExpr(hasAnyArgument(ignoringParenImpCasts(
                                        unaryOperator(hasOperatorName("&"), hasUnaryOperand(var)))))
                               .bind("call")),
                   *body, src_.ctx))
            reads[b.getNodeAs<VarDecl>("v")] = {b.getNodeAs<CallExpr>("call"), true};
        const auto call = ignoringParenImpCasts(callExpr().bind("call"));
        for (const auto& b :
             match(findAll(binaryOperator(isAssignmentOperator(),
                                          hasLHS(ignoringParenImpCasts(var)), hasRHS(call))),
                   *body, src_.ctx))
            reads.emplace(b.getNodeAs<VarDecl>("v"), Read{b.getNodeAs<CallExpr>("call"), false});
        const auto through =
            unaryOperator(hasOperatorName("*"), hasUnaryOperand(ignoringParenImpCasts(var)));
        for (const auto& b :
             match(findAll(binaryOperator(isAssignmentOperator(),
                                          hasLHS(ignoringParenImpCasts(through)), hasRHS(call))),
                   *body, src_.ctx))
            reads.emplace(b.getNodeAs<VarDecl>("v"),
                          Read{b.getNodeAs<CallExpr>("call"), false, true});
        for (const auto& b :
             match(findAll(varDecl(hasInitializer(call)).bind("v")), *body, src_.ctx))
            reads.emplace(b.getNodeAs<VarDecl>("v"), Read{b.getNodeAs<CallExpr>("call"), false});
    }
    // The reader as the source names it: inb, not the __inb a macro makes of it.
    auto callee_name = [&](const CallExpr* c) -> std::string {
        const FunctionDecl* f = c->getDirectCallee();
        if (f && !c->getBeginLoc().isMacroID())
            return f->getNameAsString();
        return src_.text(c->getCallee());
    };
    // The tests that are neither the count nor the clock: what the loop waits for. A value
    // that comes back through a pointer beats a status returned beside it.
    std::optional<LoopWait> best;
    int best_rank = 0;
    const Expr* own_test = loop_cond(loop_);
    for (const Expr* test : tests_) {
        std::vector<const Expr*> parts;
        split_test(test, parts);
        for (const Expr* part : parts) {
            if (mentions(part, counter_, src_.ctx) || reads_clock(part, src_.ctx))
                continue;
            LoopWait wait;
            // The loop's own test says when to go on: the wait is over when it fails.
            wait.condition = test == own_test ? negated(src_.text(part)) : src_.text(part);
            int rank = 1;
            for (const VarDecl* v : variables_in(part, src_.ctx)) {
                auto it = reads.find(v);
                if (it == reads.end())
                    continue;
                const int r = it->second.out_param ? 4 : 3;
                if (r > rank) {
                    rank = r;
                    wait.reader = callee_name(it->second.call);
                    wait.call = src_.text(it->second.call);
                    wait.value = (it->second.deref ? "*" : "") + v->getNameAsString();
                }
            }
            if (rank == 1) {
                const auto calls = match(findAll(callExpr().bind("call")), *part, src_.ctx);
                if (!calls.empty()) {
                    const auto* c = calls.front().getNodeAs<CallExpr>("call");
                    rank = 2;
                    wait.reader = callee_name(c);
                    wait.call = src_.text(c);
                }
            }
            if (rank > best_rank) {
                best_rank = rank;
                best = wait;
            }
        }
    }
    info_.waits_for = best;
}

std::optional<std::pair<unsigned, unsigned>> LoopReader::line_of(const Stmt* s) const {
    // The whole lines of a statement that has them to itself: [line start, next line start).
    auto r = src_.range(s);
    if (!r)
        return std::nullopt;
    const llvm::StringRef buffer = src_.sm.getBufferData(src_.sm.getMainFileID());
    unsigned begin = r->first, end = r->second;
    while (begin > 0 && (buffer[begin - 1] == ' ' || buffer[begin - 1] == '\t'))
        --begin;
    if (begin > 0 && buffer[begin - 1] != '\n')
        return std::nullopt;
    auto blanks = [&] {
        while (end < buffer.size() && (buffer[end] == ' ' || buffer[end] == '\t'))
            ++end;
    };
    blanks();
    if (end < buffer.size() && buffer[end] == ';') { // an expression statement's own ';'
        ++end;
        blanks();
    }
    if (end < buffer.size() && buffer[end] != '\n')
        return std::nullopt;
    return std::make_pair(begin, std::min<unsigned>(end + 1, buffer.size()));
}

// The declarator of `v` in a declaration of several (`int ret, timeout;`), with the comma that
// joins it to the others, as the text to delete.
std::optional<std::pair<unsigned, unsigned>> LoopReader::declarator_of(const DeclStmt* d,
                                                                       const VarDecl* v) const {
    auto r = src_.range(d);
    if (!r)
        return std::nullopt;
    const llvm::StringRef buffer = src_.sm.getBufferData(src_.sm.getMainFileID());
    const std::string text = buffer.substr(r->first, r->second - r->first).str();
    const std::vector<RawToken> tokens = lex_raw(text);
    const std::string name = v->getNameAsString();
    // Top-level commas split the declarators; the one whose first name is v's goes.
    std::vector<size_t> commas;
    int depth = 0;
    for (size_t i = 0; i < tokens.size(); ++i) {
        depth += tokens[i].is(tok::l_paren) || tokens[i].is(tok::l_brace) ? 1 : 0;
        depth -= tokens[i].is(tok::r_paren) || tokens[i].is(tok::r_brace) ? 1 : 0;
        if (depth == 0 && tokens[i].is(tok::comma))
            commas.push_back(i);
    }
    if (commas.empty())
        return std::nullopt;
    const unsigned at = src_.sm.getFileOffset(v->getLocation()) - r->first;
    // Declarator k spans (comma[k-1], comma[k]); the first one starts after the type.
    for (size_t k = 0; k <= commas.size(); ++k) {
        const size_t first = k == 0 ? 0 : commas[k - 1] + 1;
        const size_t last = k < commas.size() ? commas[k] : tokens.size() - 1; // ',' or ';'
        bool has = false;
        for (size_t i = first; i < last; ++i)
            has = has || (tokens[i].offset == at && tokens[i].text == name);
        if (!has)
            continue;
        if (k == 0) // "int timeout, ret": from the name to the next declarator
            return std::make_pair(r->first + at, r->first + tokens[commas[0] + 1].offset);
        return std::make_pair(r->first + tokens[commas[k - 1]].offset,
                              r->first + tokens[last].offset);
    }
    return std::nullopt;
}

// The declaration of `v` in a block around the loop.
const DeclStmt* declaration_in(const std::vector<const Stmt*>& path, const VarDecl* v) {
    for (const Stmt* s : path)
        if (const auto* block = llvm::dyn_cast<CompoundStmt>(s))
            for (const Stmt* o : block->body())
                if (const auto* d = llvm::dyn_cast<DeclStmt>(o))
                    for (const Decl* decl : d->decls())
                        if (decl == v)
                            return d;
    return nullptr;
}

bool declares(const Stmt* s, const VarDecl* v) {
    if (const auto* d = llvm::dyn_cast_or_null<DeclStmt>(s))
        return std::find(d->decl_begin(), d->decl_end(), v) != d->decl_end();
    return false;
}

Start LoopReader::counter_start() const {
    Start start;
    start.declared = declaration_in(path_, counter_);
    if (const auto* f = llvm::dyn_cast<ForStmt>(loop_); f && f->getInit())
        if (written_in(f->getInit(), src_.ctx).count(counter_) ||
            declares(f->getInit(), counter_)) {
            start.statement = f->getInit(); // the simulation runs it
            return start;
        }
    // Walk back from the loop through the statements before it, block by block.
    for (size_t i = path_.size(); i-- > 1;) {
        const auto* block = llvm::dyn_cast<CompoundStmt>(path_[i - 1]);
        if (!block)
            continue;
        std::vector<const Stmt*> before;
        for (const Stmt* s : block->body()) {
            if (s == path_[i])
                break;
            before.push_back(s);
        }
        for (auto it = before.rbegin(); it != before.rend(); ++it) {
            const Stmt* s = *it;
            if (declares(s, counter_)) {
                start.value = counter_->getInit();
                if (!start.value)
                    start.why = info_.counter + " is not set before the loop";
                return start;
            }
            if (!written_in(s, src_.ctx).count(counter_))
                continue;
            const auto* assign = llvm::dyn_cast<BinaryOperator>(s);
            if (assign && assign->getOpcode() == BO_Assign &&
                llvm::isa<DeclRefExpr>(assign->getLHS()->IgnoreParenImpCasts())) {
                start.value = assign->getRHS();
                start.statement = s;
            } else {
                start.why = info_.counter + " is set at line " + std::to_string(src_.line(s)) +
                            " in a way ksweep does not follow";
            }
            return start;
        }
    }
    start.why = llvm::isa<ParmVarDecl>(counter_)
                    ? "the caller gives the count (" + info_.counter + ")"
                    : info_.counter + " is not set before the loop";
    return start;
}

std::optional<std::vector<Event>> LoopReader::events(std::string& why) const {
    std::vector<Event> out;
    for (const Stmt* s : statements_of(loop_body(loop_))) {
        const bool holds_sleep = std::find(path_.begin(), path_.end(), s) != path_.end();
        const bool steps = written_in(s, src_.ctx).count(counter_) != 0;
        if (const auto* i = llvm::dyn_cast<IfStmt>(s); i && !holds_sleep) {
            const bool on_counter = mentions(i->getCond(), counter_, src_.ctx);
            const bool exits = lone_exit(i->getThen()) && !i->getElse();
            if (exits && !written_in(i->getThen(), src_.ctx).count(counter_)) {
                out.push_back({on_counter ? Event::ExitTest : Event::WaitTest, i->getCond()});
                continue;
            }
            if (on_counter && !written_in(i->getThen(), src_.ctx).count(counter_) &&
                !written_in(i->getElse(), src_.ctx).count(counter_)) {
                out.push_back({Event::Update, i->getCond()});
                continue;
            }
        }
        if (holds_sleep) {
            if (steps) {
                why = info_.counter + " changes in the statement that sleeps (line " +
                      std::to_string(src_.line(s)) + ")";
                return std::nullopt;
            }
            out.push_back({Event::Sleep, nullptr});
            continue;
        }
        if (!steps)
            continue;
        if (const auto* e = llvm::dyn_cast<Expr>(s)) {
            out.push_back({Event::Update, e});
            continue;
        }
        why =
            info_.counter + " changes inside a branch (line " + std::to_string(src_.line(s)) + ")";
        return std::nullopt;
    }
    if (std::none_of(out.begin(), out.end(), [](const Event& e) { return e.kind == Event::Sleep; }))
        out.push_back({Event::Sleep, nullptr}); // the sleep is in the loop's own test
    return out;
}

// Runs the loop on the counter alone, every other test taken as "not yet" (the longest wait):
// how many times it sleeps. `at_waits` gets the counter at each wait test (where a success
// leaves the loop), `at_end` the counter once it runs out.
std::optional<long long> LoopReader::simulate(const std::vector<Event>& events, const Start& start,
                                              std::string& why, std::vector<llvm::APSInt>* at_waits,
                                              std::optional<llvm::APSInt>* at_end) const {
    IntEnv env(src_.ctx);
    const auto* f = llvm::dyn_cast<ForStmt>(loop_);
    if (f && f->getInit() && start.statement == f->getInit()) {
        if (const auto* d = llvm::dyn_cast<DeclStmt>(f->getInit())) {
            for (const Decl* decl : d->decls())
                if (const auto* v = llvm::dyn_cast<VarDecl>(decl); v && v->getInit())
                    if (auto value = env.eval(v->getInit()))
                        env.bind(v, *value);
        } else if (const auto* e = llvm::dyn_cast<Expr>(f->getInit())) {
            // `i = 0` writes through a variable not bound yet: bind it first.
            env.bind(counter_, 0);
            env.eval(e);
        }
    } else {
        auto value = start.value ? fold_int(start.value, src_.ctx) : std::nullopt;
        if (!value) {
            why = start.why.empty() ? "its count " + src_.text(start.value) + " is not a constant"
                                    : start.why;
            return std::nullopt;
        }
        env.bind(counter_, *value);
    }
    if (!env.is_bound(counter_)) {
        why = "the start of " + info_.counter + " is not a constant";
        return std::nullopt;
    }
    const Expr* cond = loop_cond(loop_);
    const bool test_first = !llvm::isa<DoStmt>(loop_);
    long long sleeps = 0;
    auto keep_going = [&](const Expr* test) -> std::optional<bool> {
        if (!test)
            return true;
        auto t = env.truth(test, true);
        if (!t)
            why = "its test " + src_.text(test) + " could not be followed";
        return t;
    };
    for (long long round = 0; round <= kMaxTries; ++round) {
        if (test_first) {
            auto go = keep_going(cond);
            if (!go)
                return std::nullopt;
            if (!*go)
                break;
        }
        bool left = false;
        for (const Event& e : events) {
            if (e.kind == Event::Sleep) {
                ++sleeps;
            } else if (e.kind == Event::Update) {
                env.eval(e.expr);
            } else if (e.kind == Event::WaitTest) {
                if (at_waits)
                    at_waits->push_back(*env.value_of(counter_));
            } else {
                auto t = env.truth(e.expr, false);
                if (!t) {
                    why = "its test " + src_.text(e.expr) + " could not be followed";
                    return std::nullopt;
                }
                if (*t) {
                    left = true;
                    break;
                }
            }
        }
        if (left)
            break;
        if (f && f->getInc())
            env.eval(f->getInc());
        if (!test_first) {
            auto go = keep_going(cond);
            if (!go)
                return std::nullopt;
            if (!*go)
                break;
        }
        if (round == kMaxTries) {
            why = "it sleeps more than a million times";
            return std::nullopt;
        }
    }
    if (at_end)
        *at_end = env.value_of(counter_);
    return sleeps;
}

void LoopReader::count_tries() {
    const Start start = counter_start();
    std::string why;
    auto evs = events(why);
    std::optional<long long> tries;
    if (evs)
        tries = simulate(*evs, start, why, nullptr, nullptr);
    info_.tries = tries;
    if (!tries) {
        info_.tries_text = start.value ? src_.text(start.value) : info_.counter;
        info_.not_iopoll = "its count is not known: " + why;
        return;
    }
    // The count as the source names it, when a name or literal there is exactly it.
    info_.tries_text = std::to_string(*tries);
    std::vector<const Expr*> named;
    if (start.value)
        named.push_back(start.value);
    if (const Expr* cond = loop_cond(loop_))
        if (const auto* b = llvm::dyn_cast<BinaryOperator>(cond->IgnoreParenImpCasts());
            b && b->isComparisonOp())
            named.push_back(mentions(b->getLHS(), counter_, src_.ctx) ? b->getRHS() : b->getLHS());
    for (const Expr* e : named)
        if (fold_int(e, src_.ctx) == tries) {
            info_.tries_text = src_.text(e);
            break;
        }
    auto shape = iopoll_shape(start);
    if (auto* s = std::get_if<IopollShape>(&shape))
        info_.iopoll = std::move(*s);
    else
        info_.not_iopoll = std::get<std::string>(shape);
}

// Every use of the counter outside the loop, its start and the exhaustion test: "" when none.
std::string LoopReader::counter_used_elsewhere(const Start& start, const Stmt* exhaustion) const {
    const auto use = declRefExpr(to(varDecl(equalsNode(counter_)))).bind("use");
    for (const auto& b : match(findAll(use), *src_.body, src_.ctx)) {
        const Stmt* at = b.getNodeAs<Stmt>("use");
        bool allowed = false;
        for (const Stmt* owner : {loop_, start.statement, exhaustion}) {
            std::vector<const Stmt*> p;
            allowed = allowed || (owner && path_to(owner, at, p));
        }
        if (!allowed)
            return info_.counter + " is also used at line " + std::to_string(src_.line(at));
    }
    return "";
}

// Whether `d` is the one declaration that opens a block around the loop.
bool LoopReader::only_declaration(const DeclStmt* d) const {
    for (const Stmt* s : path_)
        if (const auto* block = llvm::dyn_cast<CompoundStmt>(s);
            block && !block->body_empty() && block->body_front() == d)
            return block->size() == 1 || !llvm::isa<DeclStmt>(block->body_begin()[1]);
    return false;
}

// A test that reads the device itself: the poll reads into a new variable of the read's return
// type (u8, u16, u32, u64 for the unsigned ones, as drivers spell them), named by the first of
// a few usual names that the function does not use, and declared after the declarations that
// open the loop's block (with a blank line after it when there are none), as kernel C wants.
std::string LoopReader::read_into_new_variable(const CallExpr& read, const IfStmt& test,
                                               IopollShape& shape) const {
    const FunctionDecl* callee = read.getDirectCallee();
    if (!callee)
        return "its read " + src_.text(&read) + " is not a call of a function";
    const QualType type = callee->getReturnType();
    if (!type->isIntegerType())
        return "its read " + src_.text(&read) + " returns " + type.getAsString() +
               ", not an integer";
    std::string spelled =
        type.getUnqualifiedType().getAsString(PrintingPolicy(src_.ctx.getLangOpts()));
    static const std::map<std::string, std::string> kernel_names = {{"unsigned char", "u8"},
                                                                    {"unsigned short", "u16"},
                                                                    {"unsigned int", "u32"},
                                                                    {"unsigned long long", "u64"},
                                                                    {"_Bool", "bool"}};
    if (auto it = kernel_names.find(spelled); it != kernel_names.end())
        spelled = it->second;

    const CharSourceRange whole = src_.sm.getExpansionRange(src_.function.getSourceRange());
    const std::string function_text =
        Lexer::getSourceText(whole, src_.sm, src_.ctx.getLangOpts()).str();
    std::string name;
    for (const char* candidate : {"val", "value", "reg_val", "poll_val"})
        if (!std::regex_search(function_text, std::regex(std::string("\\b") + candidate + "\\b"))) {
            name = candidate;
            break;
        }
    if (name.empty())
        return std::string("its function already uses every name the read's value could take");

    // The call as written, `op(args)` in the test's own text, so that the variable replaces
    // it: op may be a name a macro gives the function (x86's `#define inb _inb`), but not a
    // macro that holds the call (`#define READY readl(base)`).
    const auto cond = src_.written_range(test.getCond());
    const auto at = src_.written_range(&read);
    const llvm::StringRef buffer = src_.sm.getBufferData(src_.sm.getMainFileID());
    if (!cond || !at || at->first < cond->first || at->second > cond->second ||
        !buffer.slice(at->first, at->second).startswith(shape.op) ||
        !buffer.slice(at->first + shape.op.size(), at->second).ltrim(" \t").startswith("(") ||
        !buffer.slice(at->first, at->second).endswith(")"))
        return "its test " + shape.condition + " reads inside a macro";
    shape.condition = Source::squeeze(
        (buffer.slice(cond->first, at->first) + name + buffer.slice(at->second, cond->second))
            .str());
    shape.value = name;

    // Where the declaration goes: after the block's leading declarations, or its '{' line.
    const CompoundStmt* block = nullptr;
    for (size_t i = path_.size(); i-- > 1;)
        if (path_[i] == loop_) {
            block = llvm::dyn_cast<CompoundStmt>(path_[i - 1]);
            break;
        }
    if (!block)
        return std::string("its loop is not a statement of a block, where the value it reads "
                           "could be declared");
    const Stmt* last_declaration = nullptr;
    for (const Stmt* st : block->body()) {
        if (!llvm::isa<DeclStmt>(st))
            break;
        last_declaration = st;
    }
    if (last_declaration) {
        const auto lines = line_of(last_declaration);
        if (!lines)
            return "the declaration at line " + std::to_string(src_.line(last_declaration)) +
                   " shares its line";
        shape.declare_at = lines->second;
    } else {
        const SourceLocation brace = block->getLBracLoc();
        if (brace.isMacroID())
            return std::string("the loop's block opens inside a macro");
        const size_t open = src_.sm.getFileOffset(brace);
        const size_t eol = buffer.find('\n', open);
        if (eol == llvm::StringRef::npos || !buffer.slice(open + 1, eol).trim(" \t\r").empty())
            return std::string("the loop's block does not open on a line of its own");
        shape.declare_at = static_cast<unsigned>(eol + 1);
        shape.declaration_alone = true;
    }
    shape.declaration = spelled + " " + name + ";";
    return "";
}

std::variant<IopollShape, std::string> LoopReader::iopoll_shape(const Start& start) const {
    IopollShape shape;
    const auto loop_range = src_.range(loop_);
    if (!loop_range)
        return std::string("the loop is written inside a macro");
    shape.loop_begin = loop_range->first;
    shape.loop_end = loop_range->second;
    if (llvm::isa<DoStmt>(loop_)) { // the ';' after "while (...)"
        auto semi = Lexer::findNextToken(loop_->getEndLoc(), src_.sm, src_.ctx.getLangOpts());
        if (!semi || !semi->is(tok::semi))
            return std::string("the do-while has no ';' ksweep can find");
        shape.loop_end = src_.sm.getFileOffset(semi->getEndLoc());
    }
    if (sleep_.getBeginLoc().isMacroID())
        return std::string("its sleep is written inside a macro");

    // The body: the sleep first or last, one read (with regmap_read()'s status check), one
    // test that ends the wait; the counter's own steps may sit anywhere.
    std::vector<const Stmt*> body;
    for (const Stmt* s : statements_of(loop_body(loop_))) {
        const auto* e = llvm::dyn_cast<Expr>(s);
        const bool only_steps = e && !written_in(s, src_.ctx).empty() &&
                                written_in(s, src_.ctx) == std::set<const VarDecl*>{counter_} &&
                                stepped_in(s, src_.ctx).count(counter_);
        if (!only_steps)
            body.push_back(s);
    }
    auto is_sleep = [&](const Stmt* s) {
        const auto* e = llvm::dyn_cast<Expr>(s);
        return e && e->IgnoreParenCasts() == &sleep_;
    };
    const auto sleep_at = std::find_if(body.begin(), body.end(), is_sleep);
    if (sleep_at == body.end())
        return std::string("its sleep is not a statement of the loop's body of its own");
    shape.sleep_first = sleep_at == body.begin();
    const bool sleep_last = sleep_at == body.end() - 1;
    const unsigned sleep_line = src_.line(*sleep_at);
    body.erase(sleep_at);

    auto extra = [&](const Stmt* s) {
        return "its body does more than read, test and sleep (line " +
               std::to_string(src_.line(s)) + ": " + src_.text(s) + ")";
    };
    // Anything else in the body, before or after the sleep, is what stops the shape first.
    for (const Stmt* s : body)
        if (!llvm::isa<IfStmt>(s) && !llvm::isa<CallExpr>(s) && !llvm::isa<BinaryOperator>(s))
            return extra(s);
    if (!shape.sleep_first && !sleep_last) {
        // A call beside the sleep that is no read: unlocking around it, say.
        for (const Stmt* s : body)
            if (llvm::isa<CallExpr>(s) && src_.line(s) > sleep_line)
                return extra(s);
        return "it sleeps between its read and its test (line " + std::to_string(sleep_line) + ")";
    }
    // Statements other than a read, a status check and a test (an if that leaves the loop).
    for (size_t i = 0; i + 1 < body.size(); ++i) {
        const auto* branch = llvm::dyn_cast<IfStmt>(body[i]);
        const bool leaves = branch && !branch->getElse() && lone_exit(branch->getThen());
        const bool reads = llvm::isa<CallExpr>(body[i]) || llvm::isa<BinaryOperator>(body[i]);
        if (!leaves && !(reads && i == 0))
            return extra(body[i]);
    }
    // `if (inb(port) & 0x08) return 0;`: the test reads the device itself, and the poll reads
    // into a variable of the read's type, declared with the block's declarations.
    const CallExpr* read_in_test = nullptr;
    if (body.size() == 1)
        if (const auto* branch = llvm::dyn_cast<IfStmt>(body.front())) {
            const auto calls =
                match(findAll(callExpr().bind("call")), *branch->getCond(), src_.ctx);
            if (calls.size() > 1)
                return "its test " + src_.text(branch->getCond()) +
                       " calls more than one function: read_poll_timeout() reads one value";
            if (calls.size() == 1)
                read_in_test = calls.front().getNodeAs<CallExpr>("call");
        }
    if (body.size() < 2 && !read_in_test)
        return body.empty() ? std::string("its body reads nothing before its test")
                            : std::string("its body has no read and test ksweep can separate");
    // The test that ends the wait: the last statement.
    const auto* test = llvm::dyn_cast<IfStmt>(body.back());
    const Stmt* exit = test && !test->getElse() && !test->getInit() && !test->getConditionVariable()
                           ? lone_exit(test->getThen())
                           : nullptr;
    if (!exit || llvm::isa<GotoStmt>(exit))
        return extra(body.back());
    shape.condition = src_.text(test->getCond());
    if (read_in_test ? writes_besides(test->getCond(), read_in_test)
                     : test->getCond()->HasSideEffects(src_.ctx))
        return "its test " + shape.condition + " has side effects";
    if (mentions(test->getCond(), counter_, src_.ctx))
        return "its test " + shape.condition + " reads the counter";
    body.pop_back();

    // The read: `v = op(args);`, or `st = regmap_read(map, reg, &v);` and `if (st) return st;`,
    // or the call in the test.
    const VarDecl* value = nullptr;
    const VarDecl* status = nullptr;
    const CallExpr* read = read_in_test;
    const Stmt* first = read_in_test ? test : body.front();
    if (!read_in_test) {
        if (const auto* assign = llvm::dyn_cast<BinaryOperator>(first);
            assign && assign->getOpcode() == BO_Assign) {
            const auto* lhs = llvm::dyn_cast<DeclRefExpr>(assign->getLHS()->IgnoreParenImpCasts());
            read = llvm::dyn_cast<CallExpr>(assign->getRHS()->IgnoreParenImpCasts());
            if (!lhs || !read)
                return extra(first);
            value = llvm::dyn_cast<VarDecl>(lhs->getDecl());
        } else if (const auto* call = llvm::dyn_cast<CallExpr>(first)) {
            read = call;
        } else {
            return extra(first);
        }
    }
    const std::string op = src_.text(read->getCallee());
    if (op.empty() || !std::all_of(op.begin(), op.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        }))
        return "its read calls " + op + ", not a function by name";
    shape.op = op;
    // An argument given as &v is where the value comes back.
    const VarDecl* out_param = nullptr;
    for (const Expr* arg : read->arguments()) {
        const auto* addr = llvm::dyn_cast<UnaryOperator>(arg->IgnoreParenImpCasts());
        if (addr && addr->getOpcode() == UO_AddrOf)
            if (const auto* ref = llvm::dyn_cast<DeclRefExpr>(addr->getSubExpr()->IgnoreParens()))
                out_param = llvm::dyn_cast<VarDecl>(ref->getDecl());
        if (arg->HasSideEffects(src_.ctx) && !(addr && addr->getOpcode() == UO_AddrOf))
            return "its read's argument " + src_.text(arg) + " has side effects";
    }
    if (out_param) {
        if (op != "regmap_read" || read_in_test)
            return op + "() fills &" + out_param->getNameAsString() +
                   " and returns a status: read_poll_timeout() needs an op that returns the "
                   "value it reads";
        if (!value)
            return std::string("regmap_read()'s status is not checked: "
                               "regmap_read_poll_timeout() would stop at a read error");
        status = value;
        value = out_param;
        if (read->getNumArgs() != 3)
            return std::string("regmap_read() with other than three arguments");
        // The status check: `if (st) return st;` or `if (st < 0) return st;`.
        if (body.size() != 2)
            return extra(body.size() > 2 ? body[2] : first);
        const auto* check = llvm::dyn_cast<IfStmt>(body[1]);
        const auto* ret = check && !check->getElse()
                              ? llvm::dyn_cast_or_null<ReturnStmt>(lone_exit(check->getThen()))
                              : nullptr;
        const std::string st = status->getNameAsString();
        const std::string cond = check ? src_.text(check->getCond()) : "";
        if (!ret || !ret->getRetValue() || src_.text(ret->getRetValue()) != st ||
            (cond != st && cond != st + " < 0" && cond != st + " != 0"))
            return "regmap_read()'s status is not returned as it is (line " +
                   std::to_string(src_.line(body[1])) + ")";
        if (exit && llvm::isa<BreakStmt>(exit))
            return std::string("a regmap_read() loop that ends with break: not rewritten");
        shape.status = st;
        for (unsigned i = 0; i < 2; ++i)
            shape.args.push_back(src_.text(read->getArg(i)));
    } else {
        if (!read_in_test && body.size() != 1)
            return extra(body[1]);
        if (!read_in_test && !value)
            return "its read " + src_.text(read) + " keeps no value";
        for (const Expr* arg : read->arguments())
            shape.args.push_back(src_.text(arg));
    }
    if (read_in_test) {
        if (std::string why = read_into_new_variable(*read, *test, shape); !why.empty())
            return why;
    } else {
        if (!value || !value->hasLocalStorage() || llvm::isa<ParmVarDecl>(value) ||
            !value->getType()->isIntegerType())
            return "it reads into " + (value ? value->getNameAsString() : std::string("?")) +
                   ", not a local integer";
        if (value == counter_)
            return std::string("it reads into its own counter");
        if (!mentions(test->getCond(), value, src_.ctx))
            return "its test " + shape.condition + " does not read " + value->getNameAsString();
        shape.value = value->getNameAsString();
    }

    // How it leaves: `return X;` on success, or `break;` and a test of the counter after it.
    const Stmt* exhaustion = nullptr;
    if (const auto* r = llvm::dyn_cast<ReturnStmt>(exit)) {
        shape.exit = IopollShape::Exit::Return;
        if (!r->getRetValue())
            return std::string("its test returns nothing");
        if (r->getRetValue()->HasSideEffects(src_.ctx) ||
            mentions(r->getRetValue(), counter_, src_.ctx))
            return "it returns " + src_.text(r->getRetValue()) + " on success";
        shape.success = src_.text(r->getRetValue());
        if (!shape.status.empty() && fold_int(r->getRetValue(), src_.ctx) != 0)
            return "it returns " + shape.success + ", not 0, on success after regmap_read()";
    } else {
        shape.exit = IopollShape::Exit::Break;
        // The statement right after the loop must tell running out from success by the counter.
        const Stmt* next = nullptr;
        for (size_t i = path_.size(); i-- > 1;)
            if (path_[i] == loop_) {
                if (const auto* c = llvm::dyn_cast<CompoundStmt>(path_[i - 1])) {
                    const auto* const* it = std::find(c->body_begin(), c->body_end(), loop_);
                    if (it != c->body_end() && it + 1 != c->body_end())
                        next = *(it + 1);
                }
                break;
            }
        const auto* after = llvm::dyn_cast_or_null<IfStmt>(next);
        if (!after || after->getInit() || after->getConditionVariable())
            return std::string("nothing right after the loop tests whether it ran out");
        const Expr* ran_out = after->getCond();
        if (ran_out->HasSideEffects(src_.ctx))
            return "the test after the loop (" + src_.text(ran_out) + ") has side effects";
        // Either it tests the last value the way the wait's test fails (`if (val)` after
        // `if (!val) break;`: the poll re-reads once it runs out, and returns non-zero then), or
        // it tests the counter alone, checked by running it: true where it ran out, false
        // wherever a success left the loop.
        const bool fails_the_wait = negated(src_.text(ran_out)) == shape.condition ||
                                    negated(shape.condition) == src_.text(ran_out);
        if (!fails_the_wait) {
            if (variables_in(ran_out, src_.ctx) != std::set<const VarDecl*>{counter_})
                return "the test after the loop (" + src_.text(ran_out) +
                       ") reads neither the counter alone nor the value the wait tests";
            std::string why;
            auto evs = events(why);
            std::vector<llvm::APSInt> at_waits;
            std::optional<llvm::APSInt> at_end;
            if (!evs || !simulate(*evs, start, why, &at_waits, &at_end) || !at_end)
                return "running out cannot be told from success: " + why;
            auto holds = [&](const llvm::APSInt& v) {
                IntEnv env(src_.ctx);
                env.bind(counter_, v);
                return env.truth(ran_out, false);
            };
            auto out = holds(*at_end);
            bool ok = out && *out;
            for (const auto& v : at_waits) {
                auto success = holds(v);
                ok = ok && success && !*success;
            }
            if (!ok)
                return "the test after the loop (" + src_.text(ran_out) +
                       ") does not tell running out from success";
        }
        auto test_range = src_.range(ran_out);
        if (!test_range)
            return std::string("the test after the loop is written inside a macro");
        shape.test_begin = test_range->first;
        shape.test_end = test_range->second;
        exhaustion = ran_out;
    }

    if (std::string why = counter_used_elsewhere(start, exhaustion); !why.empty())
        return why;
    // The counter's own lines go with the loop: its declaration and its start.
    if (counter_->hasLocalStorage() && !llvm::isa<ParmVarDecl>(counter_)) {
        if (!start.declared)
            return info_.counter + "'s declaration is not in a block around the loop";
        if (start.declared->isSingleDecl()) {
            auto lines = line_of(start.declared);
            if (!lines)
                return info_.counter + "'s declaration shares its line";
            // The blank line after a block's only declaration goes with it (none may follow
            // an opening brace), unless the poll's own variable is declared in its place.
            if (only_declaration(start.declared) && shape.declare_at != lines->second) {
                const llvm::StringRef buffer = src_.sm.getBufferData(src_.sm.getMainFileID());
                const size_t eol = buffer.find('\n', lines->second);
                if (eol != llvm::StringRef::npos &&
                    buffer.slice(lines->second, eol).trim(" \t\r").empty())
                    lines->second = static_cast<unsigned>(eol + 1);
            }
            shape.removals.push_back(*lines);
        } else {
            auto part = declarator_of(start.declared, counter_);
            if (!part)
                return info_.counter + "'s declaration is not one ksweep can edit";
            shape.removals.push_back(*part);
        }
    } else {
        return info_.counter + " is not a local variable";
    }
    if (start.statement &&
        !(llvm::isa<ForStmt>(loop_) && start.statement == llvm::cast<ForStmt>(loop_)->getInit())) {
        auto lines = line_of(start.statement);
        if (!lines)
            return info_.counter + "'s start shares its line";
        shape.removals.push_back(*lines);
    }
    return shape;
}

int tightness(LoopEnd e) {
    switch (e) {
    case LoopEnd::Count:
        return 4;
    case LoopEnd::Unknown:
        return 3;
    case LoopEnd::Time:
        return 2;
    case LoopEnd::Condition:
        return 1;
    case LoopEnd::None:
        break;
    }
    return 0;
}

} // namespace

LoopInfo analyse_loop(const CallExpr& sleep, const FunctionDecl& function, ASTContext& ctx) {
    LoopInfo none;
    none.ends_by = LoopEnd::None;
    const Stmt* body = function.getBody();
    std::vector<const Stmt*> path;
    if (!body || !path_to(body, &sleep, path))
        return none;
    for (size_t i = path.size(); i-- > 0;)
        if (is_loop(path[i])) {
            LoopReader reader(Source{ctx, ctx.getSourceManager(), body, function}, path[i], sleep,
                              path);
            return reader.read();
        }
    return none;
}

LoopInfo tighter_loop(const LoopInfo& a, const LoopInfo& b) {
    if (tightness(a.ends_by) != tightness(b.ends_by))
        return tightness(a.ends_by) > tightness(b.ends_by) ? a : b;
    if (a.ends_by == LoopEnd::Count && a.tries && b.tries)
        return *a.tries <= *b.tries ? a : b;
    return a;
}

} // namespace ksweep
