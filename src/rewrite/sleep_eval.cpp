#include "rewrite/sleep_eval.h"

#include "core/file_io.h"
#include "core/rule.h"
#include "core/sleep_model.h"
#include "kbuild/kernel_tree.h"
#include "rewrite/compile_flags.h"
#include "rewrite/first_error.h"
#include "rewrite/input_files.h"
#include "rewrite/int_eval.h"
#include "rewrite/lexical_tokens.h"
#include "rewrite/sleep_eval_memo.h"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Tooling/Tooling.h>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

using namespace clang;

// The calls that sleep or wait: where a run stops and reads the arguments.
bool is_primitive(const std::string& name) {
    static const char* const names[] = {"usleep_range",
                                        "usleep_range_state",
                                        "msleep",
                                        "msleep_interruptible",
                                        "udelay",
                                        "ndelay",
                                        "mdelay",
                                        "__udelay",
                                        "__const_udelay",
                                        "__ndelay",
                                        "__delay",
                                        "schedule_timeout",
                                        "schedule_hrtimeout_range"};
    return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

// Headers of a delay context: delay.h, and iopoll.h with a probe that polls for a condition
// that never holds and never times out, so that its run reaches the sleep between two tries.
constexpr const char* kDelayProbe = R"(#include <linux/delay.h>
#if __has_include(<linux/iopoll.h>)
#include <linux/iopoll.h>
#endif
static inline int ksweep_probe_read(int ksweep_x)
{
	return ksweep_x;
}
#ifdef read_poll_timeout
static inline int ksweep_probe_iopoll(unsigned long ksweep_sleep_us)
{
	int ksweep_v = 0;

	return read_poll_timeout(ksweep_probe_read, ksweep_v, 0, ksweep_sleep_us, 0, false, 0);
}
#endif
)";

// Runs a function body for bound arguments until it reaches a sleep primitive.
class Runner {
  public:
    Runner(ASTContext& ctx, std::string tree) : ctx_(ctx), env_(ctx), tree_(std::move(tree)) {}

    enum class Flow { Normal, Break, Continue, Return, Stop };

    Flow call(const FunctionDecl& f, const std::vector<std::optional<llvm::APSInt>>& args,
              int depth) {
        const FunctionDecl* def = f.getDefinition();
        if (!def || !def->getBody() || depth > 6)
            return Flow::Normal;
        for (unsigned i = 0; i < def->getNumParams(); ++i) {
            const ParmVarDecl* p = def->getParamDecl(i);
            if (i < args.size() && args[i] && p->getType()->isIntegerType())
                env_.bind(p, *args[i]);
            else
                env_.unbind(p);
        }
        const Flow flow = exec(def->getBody(), depth);
        return flow == Flow::Stop ? Flow::Stop : Flow::Normal;
    }

    IntEnv& env() { return env_; }
    std::optional<SleepStep> step;
    std::string note;

  private:
    std::string where(SourceLocation loc) const {
        const auto& sm = ctx_.getSourceManager();
        const PresumedLoc p = sm.getPresumedLoc(sm.getSpellingLoc(loc));
        if (p.isInvalid())
            return "";
        std::string file = fs::path(p.getFilename()).lexically_normal().string();
        if (file.rfind(tree_ + "/", 0) == 0)
            file = file.substr(tree_.size() + 1);
        return file + ":" + std::to_string(p.getLine());
    }

    Flow stop(std::string why) {
        if (note.empty())
            note = std::move(why);
        return Flow::Stop;
    }

    Flow visit_call(const CallExpr& c, int depth) {
        for (const Expr* arg : c.arguments())
            if (visit(arg, depth) == Flow::Stop)
                return Flow::Stop;
        const FunctionDecl* callee = c.getDirectCallee();
        if (!callee)
            return Flow::Normal;
        const std::string name = callee->getNameAsString();
        std::vector<std::optional<llvm::APSInt>> args;
        for (const Expr* arg : c.arguments())
            args.push_back(arg->getType()->isIntegerType() ? env_.eval(arg) : std::nullopt);
        if (is_primitive(name)) {
            SleepStep s;
            s.primitive = name;
            s.at = where(c.getBeginLoc());
            for (size_t i = 0; i < args.size(); ++i) {
                if (!args[i])
                    return stop(name + "()'s argument " + std::to_string(i + 1) +
                                " is not a constant here (" + s.at + ")");
                s.args.push_back(args[i]->getExtValue());
            }
            step = s;
            return Flow::Stop;
        }
        return call(*callee, args, depth + 1);
    }

    // The calls an expression makes, in C's order where it matters (&&, ||, ?:).
    Flow visit(const Stmt* s, int depth) {
        if (!s)
            return Flow::Normal;
        if (const auto* c = llvm::dyn_cast<CallExpr>(s))
            return visit_call(*c, depth);
        if (const auto* se = llvm::dyn_cast<StmtExpr>(s))
            return exec(se->getSubStmt(), depth) == Flow::Stop ? Flow::Stop : Flow::Normal;
        if (const auto* co = llvm::dyn_cast<ConditionalOperator>(s)) {
            if (visit(co->getCond(), depth) == Flow::Stop)
                return Flow::Stop;
            auto t = env_.eval(co->getCond());
            if (!t)
                return Flow::Normal; // a value, not a sleep, hangs on it
            return visit(t->isZero() ? co->getFalseExpr() : co->getTrueExpr(), depth);
        }
        if (const auto* b = llvm::dyn_cast<BinaryOperator>(s);
            b && (b->getOpcode() == BO_LAnd || b->getOpcode() == BO_LOr)) {
            if (visit(b->getLHS(), depth) == Flow::Stop)
                return Flow::Stop;
            auto l = env_.eval(b->getLHS());
            if (l && (b->getOpcode() == BO_LAnd ? l->isZero() : !l->isZero()))
                return Flow::Normal;
            return visit(b->getRHS(), depth);
        }
        for (const Stmt* child : s->children())
            if (visit(child, depth) == Flow::Stop)
                return Flow::Stop;
        // Assignments to the variables the run follows; one it cannot follow unbinds.
        if (const auto* b = llvm::dyn_cast<BinaryOperator>(s); b && b->isAssignmentOp())
            if (!env_.eval(b))
                if (const auto* ref =
                        llvm::dyn_cast<DeclRefExpr>(b->getLHS()->IgnoreParenImpCasts()))
                    env_.unbind(ref->getDecl());
        return Flow::Normal;
    }

    // A branch that ends the pass: break or return, last.
    static bool leaves(const Stmt* s) {
        if (const auto* block = llvm::dyn_cast_or_null<CompoundStmt>(s))
            s = block->body_empty() ? nullptr : block->body_back();
        return s && (llvm::isa<BreakStmt>(s) || llvm::isa<ReturnStmt>(s));
    }

    Flow exec(const Stmt* s, int depth) {
        if (!s)
            return Flow::Normal;
        if (const auto* block = llvm::dyn_cast<CompoundStmt>(s)) {
            for (const Stmt* child : block->body())
                if (Flow f = exec(child, depth); f != Flow::Normal)
                    return f;
            return Flow::Normal;
        }
        if (const auto* d = llvm::dyn_cast<DeclStmt>(s)) {
            for (const Decl* decl : d->decls())
                if (const auto* v = llvm::dyn_cast<VarDecl>(decl); v && v->getInit()) {
                    if (visit(v->getInit(), depth) == Flow::Stop)
                        return Flow::Stop;
                    auto value =
                        v->getType()->isIntegerType() ? env_.eval(v->getInit()) : std::nullopt;
                    if (value)
                        env_.bind(v, *value);
                    else
                        env_.unbind(v);
                }
            return Flow::Normal;
        }
        if (const auto* i = llvm::dyn_cast<IfStmt>(s)) {
            if (visit(i->getCond(), depth) == Flow::Stop)
                return Flow::Stop;
            auto t = env_.eval(i->getCond());
            // A poll's "give up now?" (the clock, the device): the pass that goes on is the
            // one whose sleep is asked for.
            if (!t && !i->getElse() && leaves(i->getThen()))
                return Flow::Normal;
            if (!t)
                return stop("the branch at " + where(i->getBeginLoc()) +
                            " depends on what is not a constant here");
            return exec(t->isZero() ? i->getElse() : i->getThen(), depth);
        }
        if (llvm::isa<ForStmt>(s) || llvm::isa<WhileStmt>(s) || llvm::isa<DoStmt>(s)) {
            // One pass: the sleep between two tries is what is asked.
            const Stmt* body = nullptr;
            if (const auto* f = llvm::dyn_cast<ForStmt>(s)) {
                if (exec(f->getInit(), depth) == Flow::Stop)
                    return Flow::Stop;
                body = f->getBody();
            } else if (const auto* w = llvm::dyn_cast<WhileStmt>(s)) {
                body = w->getBody();
            } else {
                body = llvm::cast<DoStmt>(s)->getBody();
            }
            const Flow f = exec(body, depth);
            return f == Flow::Stop || f == Flow::Return ? f : Flow::Normal;
        }
        if (const auto* r = llvm::dyn_cast<ReturnStmt>(s))
            return visit(r->getRetValue(), depth) == Flow::Stop ? Flow::Stop : Flow::Return;
        if (llvm::isa<BreakStmt>(s))
            return Flow::Break;
        if (llvm::isa<ContinueStmt>(s))
            return Flow::Continue;
        return visit(s, depth);
    }

    ASTContext& ctx_;
    IntEnv env_;
    std::string tree_;
};

const FunctionDecl* function_named(ASTContext& ctx, const std::string& name) {
    for (const Decl* d : ctx.getTranslationUnitDecl()->decls())
        if (const auto* f = llvm::dyn_cast<FunctionDecl>(d); f && f->getNameAsString() == name)
            if (const FunctionDecl* def = f->getDefinition())
                return def;
    return nullptr;
}

} // namespace

std::optional<double> SleepStep::max_ms(int hz, bool extra_jiffy) const {
    if ((primitive == "usleep_range" || primitive == "usleep_range_state" ||
         primitive == "schedule_hrtimeout_range") &&
        args.size() >= 2)
        return static_cast<double>(args[1]) / 1000.0;
    if ((primitive == "msleep" || primitive == "msleep_interruptible") && !args.empty())
        return predicted_sleep_ms(CallForm("msleep"), args[0], hz, extra_jiffy);
    return std::nullopt;
}

std::string SleepStep::text() const {
    std::string out = primitive + "(";
    for (size_t i = 0; i < args.size(); ++i)
        out += (i ? ", " : "") + std::to_string(args[i]);
    return out + ")";
}

struct TreeSleeps::Parse {
    std::unique_ptr<ASTUnit> ast;
    std::string error;               // the parse failed: why
    std::vector<std::string> inputs; // the headers it read
    long long started_ns = 0;
};

// One parse the evaluator asks for, made once per (place, code, HZ): the probe's text
// (CONFIG_HZ set before any header) at its place in the tree, the compiler arguments of that
// place, the evaluations kept of it, and the parse once one is needed.
struct TreeSleeps::Probe {
    std::string path; // tree-relative
    std::string text;
    std::vector<std::string> args;
    int hz = 0;
    std::unique_ptr<SleepEvalMemo> memo;
    std::unique_ptr<Parse> parse; // made on the first evaluation the memo does not hold

    // Everything the parse is given, as text: the memo's key.
    std::string key_text(const std::string& tree) const {
        std::string out = tree + "/" + path + "\nHZ " + std::to_string(hz) + "\n";
        for (const std::string& a : args)
            out += a + "\n";
        return out + text;
    }
};

struct TreeSleeps::State {
    std::string tree, build_dir, memo_dir;
    CompileFlags flags;
    std::mutex mutex;
    std::map<std::tuple<std::string, std::string, int>, std::unique_ptr<Probe>> probes;
    int parses_made = 0;

    State(std::string t, std::string b, std::string m)
        : tree(std::move(t)), build_dir(std::move(b)), memo_dir(std::move(m)),
          flags(tree, build_dir) {}
};

TreeSleeps::TreeSleeps(std::string tree, std::string build_dir, std::string memo_dir) {
    tree = fs::absolute(tree).lexically_normal().string();
    if (tree.size() > 1 && tree.back() == '/')
        tree.pop_back();
    const auto api = kbuild::read_sleep_api(tree);
    extra_jiffy_ = api.msleep_extra_jiffy.value_or(
        msleep_extra_jiffy(kbuild::read_kernel_version(tree).value_or(KernelVersion{})));
    state_ = std::make_unique<State>(std::move(tree), std::move(build_dir), std::move(memo_dir));
}

TreeSleeps::~TreeSleeps() = default;

int TreeSleeps::parses_made() const {
    std::lock_guard lock(state_->mutex);
    return state_->parses_made;
}

SleepEval TreeSleeps::evaluate(const std::string& probe_path, const std::string& code, int hz,
                               const std::string& function, long long value,
                               const std::string& missing) {
    std::lock_guard lock(state_->mutex);
    auto& probe = state_->probes[std::make_tuple(probe_path, code, hz)];
    if (!probe) {
        // CONFIG_HZ before any header: HZ, TICK_NSEC and every #if on them follow. The build
        // dir's generated timeconst.h (kernel/time/timeconst.bc, guarded by
        // KERNEL_TIMECONST_H) holds its own HZ's constants and refuses any other; jiffies.h
        // reads them only for an HZ that does not divide 1000, and 100, 250 and 1000 all do:
        // it is left out.
        probe = std::make_unique<Probe>();
        probe->path = probe_path;
        probe->text = "#undef CONFIG_HZ\n#define CONFIG_HZ " + std::to_string(hz) +
                      "\n#define KERNEL_TIMECONST_H\n" + code;
        probe->args = state_->flags.for_file(probe_path);
        std::erase(probe->args, "-ferror-limit=1");
        probe->hz = hz;
        probe->memo =
            std::make_unique<SleepEvalMemo>(state_->memo_dir, probe->key_text(state_->tree));
    }
    if (auto kept = probe->memo->find(function, value))
        return *kept;
    Parse& p = parse(*probe);
    SleepEval out = run(p, function, value, missing);
    if (p.ast)
        probe->memo->keep(function, value, out, p.inputs, p.started_ns);
    return out;
}

TreeSleeps::Parse& TreeSleeps::parse(Probe& probe) {
    if (probe.parse)
        return *probe.parse;
    auto parse = std::make_unique<Parse>();
    parse->started_ns = now_ns();
    ++state_->parses_made;
    const std::string main = state_->tree + "/" + probe.path;
    FirstError errors;
    parse->ast = clang::tooling::buildASTFromCodeWithArgs(
        probe.text, probe.args, main, "clang-tool", std::make_shared<PCHContainerOperations>(),
        clang::tooling::getClangStripDependencyFileAdjuster(), {}, &errors);
    if (!parse->ast || !errors.message.empty()) {
        parse->error = errors.message.empty() ? "the parse failed" : errors.message;
        parse->ast.reset();
    } else {
        const SourceManager& sm = parse->ast->getSourceManager();
        for (auto f = sm.fileinfo_begin(); f != sm.fileinfo_end(); ++f)
            if (f->first && f->first->getName() != main) // the probe's text is in the key
                parse->inputs.push_back(f->first->getName().str());
    }
    probe.parse = std::move(parse);
    return *probe.parse;
}

SleepEval TreeSleeps::run(Parse& p, const std::string& function, long long value,
                          const std::string& missing) {
    SleepEval out;
    if (!p.ast) {
        out.note = "the tree's headers did not parse (" + p.error + ")";
        return out;
    }
    ASTContext& ctx = p.ast->getASTContext();
    const FunctionDecl* f = function_named(ctx, function);
    if (!f) {
        out.note = missing;
        return out;
    }
    out.defined = true;
    Runner runner(ctx, state_->tree);
    runner.call(
        *f,
        {runner.env().fit(llvm::APSInt(llvm::APInt(64, static_cast<uint64_t>(value)), false),
                          f->getParamDecl(0)->getType())},
        0);
    out.step = runner.step;
    if (!out.step)
        out.note = runner.note.empty()
                       ? function + "(" + std::to_string(value) + ") reaches no sleep ksweep knows"
                       : runner.note;
    return out;
}

SleepEval TreeSleeps::fsleep(long long us, int hz) {
    return evaluate(".ksweep-sleep-probe.c", kDelayProbe, hz, "fsleep", us,
                    "include/linux/delay.h has no fsleep() (it came with v5.8)");
}

SleepEval TreeSleeps::iopoll_sleep(long long sleep_us, int hz) {
    return evaluate(".ksweep-sleep-probe.c", kDelayProbe, hz, "ksweep_probe_iopoll", sleep_us,
                    "include/linux/iopoll.h has no read_poll_timeout()");
}

SleepEval TreeSleeps::helper(const std::string& header, const std::string& name, long long value,
                             int hz) {
    const fs::path h(header);
    const std::string probe = (h.parent_path() / ".ksweep-sleep-probe.c").generic_string();
    return evaluate(probe, "#include \"" + h.filename().string() + "\"\n", hz, name, value,
                    header + " has no " + name + "()");
}

bool TreeSleeps::defines(const std::string& header, const std::string& macro) const {
    const auto text = read_file(fs::path(state_->tree) / header);
    if (!text)
        return false;
    const std::vector<RawToken> tokens = lex_raw(*text);
    for (size_t i = 0; i + 3 < tokens.size(); ++i)
        if (tokens[i].is(tok::hash) && tokens[i].line_start &&
            tokens[i + 1].is_identifier("define") && tokens[i + 2].is_identifier(macro) &&
            tokens[i + 3].is(tok::l_paren))
            return true;
    return false;
}

FsleepRead TreeSleeps::read_fsleep() {
    FsleepRead out;
    bool twice = false, quarter = true, any_range = false;
    std::string twice_at, quarter_at;
    for (int hz : {100, 250, 1000})
        for (long long us : {20LL, 100LL, 1000LL, 5000LL, 10000LL, 19000LL}) {
            const SleepEval e = fsleep(us, hz);
            if (!e.defined && e.note.find("has no fsleep") != std::string::npos) {
                out.kind = kbuild::FsleepKind::Absent;
                out.source = "include/linux/delay.h";
                out.note = e.note;
                return out;
            }
            if (!e.step) {
                out.note = "fsleep(" + std::to_string(us) + ") at HZ=" + std::to_string(hz) +
                           " not evaluated: " + e.note;
                return out;
            }
            const SleepStep& s = *e.step;
            if (s.primitive != "usleep_range" && s.primitive != "usleep_range_state")
                continue;
            any_range = true;
            const long long lo = s.args.at(0), hi = s.args.at(1);
            if (hi >= 2 * lo) {
                twice = true;
                twice_at = s.at;
            }
            if (hi * 4 > lo * 5) {
                quarter = false;
                if (!twice && out.note.empty())
                    out.note = "fsleep(" + std::to_string(us) + ") at HZ=" + std::to_string(hz) +
                               " is " + s.text() + " (" + s.at +
                               "), neither twice the sleep nor a quarter more at most";
            } else {
                quarter_at = s.at;
            }
        }
    if (twice) {
        out.kind = kbuild::FsleepKind::DoubleRange;
        out.source = twice_at;
        out.note.clear();
    } else if (any_range && quarter) {
        out.kind = kbuild::FsleepKind::QuarterSlack;
        out.source = quarter_at;
    } else if (!any_range) {
        out.note = "fsleep() reaches no usleep_range() for sleeps of 20 us to 19 ms";
    }
    return out;
}

TreeSleeps& tree_sleeps(const std::string& tree, const std::string& build_dir) {
    static std::mutex mutex;
    static std::map<std::pair<std::string, std::string>, std::unique_ptr<TreeSleeps>> known;
    std::lock_guard lock(mutex);
    const std::string key = fs::absolute(tree).lexically_normal().string();
    auto& slot = known[{key, build_dir}];
    if (!slot)
        slot = std::make_unique<TreeSleeps>(tree, build_dir, sleep_eval_cache_dir());
    return *slot;
}

kbuild::SleepApi evaluated_sleep_api(const std::string& tree, const std::string& build_dir) {
    kbuild::SleepApi api = kbuild::read_sleep_api(tree);
    std::error_code ec;
    if (!fs::is_directory(tree, ec))
        return api;
    const FsleepRead f = tree_sleeps(tree, build_dir).read_fsleep();
    api.fsleep = f.kind;
    api.fsleep_source = f.source;
    api.fsleep_note = f.note;
    return api;
}

} // namespace ksweep
