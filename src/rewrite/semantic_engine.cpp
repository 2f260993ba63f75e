#include "rewrite/semantic_engine.h"

#include "rewrite/first_error.h"
#include "rewrite/input_files.h"
#include "rewrite/int_eval.h"
#include "rewrite/loop_analysis.h"
#include "rewrite/parse_cache.h"
#include "rewrite/preamble_cache.h"

#include <algorithm>
#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/ASTMatchers/ASTMatchFinder.h>
#include <clang/ASTMatchers/ASTMatchers.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <filesystem>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <map>
#include <tuple>

namespace ksweep {

namespace {

using namespace clang::ast_matchers;

// One use of a macro, then where each call it expands to is spelled (file, offset): a use may
// expand to several calls.
using ExpansionKey = std::tuple<unsigned, std::string, unsigned, std::string>;

class ScanConsumer : public clang::ASTConsumer {
  public:
    ScanConsumer(clang::CompilerInstance& ci, const SemanticRequest& request, SemanticScan& out)
        : ci_(ci), request_(request), out_(out) {}

    // Only consulted with SkipFunctionBodies on: parse a body only if a call is in it.
    bool shouldSkipFunctionBody(clang::Decl* d) override {
        const auto& sm = ci_.getSourceManager();
        clang::SourceLocation loc = d->getLocation();
        if (!sm.isInMainFile(sm.getExpansionLoc(loc)))
            return true; // headers: inline functions hold no call of this file
        if (request_.expansions || loc.isMacroID())
            return false; // a function made by a macro: its body is not where blocks say
        unsigned offset = sm.getFileOffset(loc);
        auto block = std::find_if(request_.blocks.begin(), request_.blocks.end(),
                                  [&](const auto& b) { return b.first > offset; });
        if (block == request_.blocks.end())
            return false;
        return std::none_of(request_.call_offsets.begin(), request_.call_offsets.end(),
                            [&](unsigned c) { return c > block->first && c < block->second; });
    }

    void HandleTranslationUnit(clang::ASTContext& ctx) override {
        if (ci_.getDiagnostics().hasErrorOccurred())
            return;
        std::vector<llvm::StringRef> names(request_.functions.begin(), request_.functions.end());
        std::vector<llvm::StringRef> others(request_.other_sleeps.begin(),
                                            request_.other_sleeps.end());
        // Run per top-level declaration of the main file: the headers' thousands are not walked.
        auto matcher = decl(forEachDescendant(
            callExpr(callee(functionDecl(hasAnyName(llvm::ArrayRef<llvm::StringRef>(names)))))
                .bind("call")));
        auto other_matcher = decl(forEachDescendant(
            callExpr(callee(functionDecl(hasAnyName(llvm::ArrayRef<llvm::StringRef>(others)))))
                .bind("call")));
        const auto& sm = ctx.getSourceManager();
        std::map<std::pair<unsigned, std::string>, SemanticSite> sites;
        std::map<ExpansionKey, SemanticExpansion> expansions;
        // This file's own declarations: those of a precompiled preamble are not loaded.
        for (clang::Decl* d : ctx.getTranslationUnitDecl()->noload_decls()) {
            if (!sm.isInMainFile(sm.getExpansionLoc(d->getBeginLoc())))
                continue;
            const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(d);
            const std::string function = fd ? fd->getNameAsString() : "";
            for (const auto& bound : match(matcher, *d, ctx))
                if (auto* call = bound.getNodeAs<clang::CallExpr>("call")) {
                    record(*call, fd, ctx, sites);
                    if (request_.expansions)
                        record_expansion(*call, function, ctx, expansions);
                }
            if (!others.empty() && fd)
                for (const auto& bound : match(other_matcher, *d, ctx))
                    if (auto* call = bound.getNodeAs<clang::CallExpr>("call"))
                        record_other(*call, *fd, ctx);
        }
        for (auto& [offset, site] : sites)
            out_.sites.push_back(std::move(site));
        // Number the calls of each use in source order of their spelling.
        std::map<unsigned, unsigned> per_use;
        for (auto& [key, expansion] : expansions) {
            expansion.ordinal = per_use[expansion.use_begin]++;
            out_.expansions.push_back(std::move(expansion));
        }
    }

  private:
    std::string where(clang::SourceLocation loc) const {
        auto p = ci_.getSourceManager().getPresumedLoc(loc);
        if (p.isInvalid())
            return {};
        // "st33zp24/../tpm.h" as included: name the file once, as the tree does.
        std::string file = std::filesystem::path(p.getFilename()).lexically_normal().string();
        const std::string prefix = request_.tree + "/";
        if (file.rfind(prefix, 0) == 0)
            file = file.substr(prefix.size());
        return file + ":" + std::to_string(p.getLine());
    }

    void record(const clang::CallExpr& call, const clang::FunctionDecl* function,
                clang::ASTContext& ctx,
                std::map<std::pair<unsigned, std::string>, SemanticSite>& sites) {
        const auto& sm = ctx.getSourceManager();
        clang::SourceLocation spelling = sm.getSpellingLoc(call.getBeginLoc());
        if (sm.getFileID(spelling) != sm.getMainFileID() || call.getNumArgs() < 1)
            return; // spelled in a header's macro: that header is scanned on its own
        const auto arguments = value_arguments(call);
        if (arguments.empty())
            return;
        LoopInfo loop;
        if (function)
            loop = analyse_loop(call, *function, ctx);
        else
            loop.ends_by = LoopEnd::None;
        for (const auto& [through, arg] : arguments) {
            SemanticSite site;
            site.call_begin = sm.getFileOffset(spelling);
            site.through = through;
            site.function = function ? function->getNameAsString() : "";
            site.value = fold_int(arg, ctx);
            name_constant(site, arg, call.getBeginLoc());
            site.loop = loop;

            auto [it, inserted] = sites.emplace(std::make_pair(site.call_begin, through), site);
            if (inserted)
                continue;
            if (it->second.value != site.value)
                it->second.conflicting = true; // one #define body, expansions that differ
            it->second.loop = tighter_loop(it->second.loop, site.loop);
        }
    }

    // A sleep that is not the rule's, written in this file, with its loop.
    void record_other(const clang::CallExpr& call, const clang::FunctionDecl& function,
                      clang::ASTContext& ctx) {
        const auto& sm = ctx.getSourceManager();
        const clang::SourceLocation spelling = sm.getSpellingLoc(call.getBeginLoc());
        if (sm.getFileID(spelling) != sm.getMainFileID() || !call.getDirectCallee())
            return;
        OtherSleep s;
        s.call_begin = sm.getFileOffset(spelling);
        s.callee = call.getDirectCallee()->getNameAsString();
        for (const clang::Expr* arg : call.arguments())
            s.args.push_back(fold_int(arg, ctx));
        s.function = function.getNameAsString();
        s.loop = analyse_loop(call, function, ctx);
        out_.other_sleeps.push_back(std::move(s));
    }

    bool has_form(const std::string& callee, const std::string& through) const {
        return std::find(request_.forms.begin(), request_.forms.end(),
                         std::make_pair(callee, through)) != request_.forms.end();
    }

    // The expressions the rules' values are, with the conversion of each form: ARG in
    // callee(through(ARG)), and the whole argument for a form callee(ARG). Several rules may
    // look at one call in both shapes. Empty when the call has none of their shapes
    // (schedule_timeout(HZ / 10)).
    std::vector<std::pair<std::string, const clang::Expr*>>
    value_arguments(const clang::CallExpr& call) const {
        std::vector<std::pair<std::string, const clang::Expr*>> out;
        const clang::FunctionDecl* callee = call.getDirectCallee();
        if (!callee || call.getNumArgs() < 1)
            return out;
        const std::string name = callee->getNameAsString();
        const clang::Expr* arg = call.getArg(0);
        if (const auto* inner = llvm::dyn_cast<clang::CallExpr>(arg->IgnoreParenImpCasts()))
            if (const clang::FunctionDecl* via = inner->getDirectCallee();
                via && inner->getNumArgs() == 1 && has_form(name, via->getNameAsString()))
                out.emplace_back(via->getNameAsString(), inner->getArg(0));
        if (has_form(name, ""))
            out.emplace_back("", arg);
        return out;
    }

    // A call whose callee comes from a macro's body rather than from text written here (or
    // passed in as a macro argument): the use of the macro in this file is where it sleeps.
    void record_expansion(const clang::CallExpr& call, const std::string& function,
                          clang::ASTContext& ctx, std::map<ExpansionKey, SemanticExpansion>& out) {
        const auto& sm = ctx.getSourceManager();
        const clang::SourceLocation begin = call.getBeginLoc();
        if (!begin.isMacroID() || call.getNumArgs() < 1)
            return;
        const clang::SourceLocation written = sm.getFileLoc(begin);
        const clang::SourceLocation spelling = sm.getSpellingLoc(begin);
        if (written == spelling || !sm.isInMainFile(written))
            return; // written where it is used (a macro argument), or used in a header
        for (const auto& [through, arg] : value_arguments(call)) {
            SemanticExpansion e;
            e.through = through;
            e.use_begin = sm.getFileOffset(written);
            e.callee = call.getDirectCallee() ? call.getDirectCallee()->getNameAsString() : "";
            e.value = fold_int(arg, ctx);
            e.spelled_at = where(spelling);
            e.function = function;
            const auto [file, offset] = sm.getDecomposedLoc(spelling);
            const auto* entry = sm.getFileEntryForID(file);
            ExpansionKey key{e.use_begin, entry ? entry->getName().str() : "", offset, through};
            out.emplace(std::move(key), std::move(e));
        }
    }

    // For a one-name argument: is it a macro (which one, where) or an enumerator?
    void name_constant(SemanticSite& site, const clang::Expr* arg, clang::SourceLocation at) {
        auto named = std::find_if(request_.single_names.begin(), request_.single_names.end(),
                                  [&](const auto& n) { return n.first == site.call_begin; });
        if (named == request_.single_names.end())
            return;
        auto& pp = ci_.getPreprocessor();
        const auto& sm = ci_.getSourceManager();
        clang::IdentifierInfo* id = pp.getIdentifierInfo(named->second);
        auto definition = pp.getMacroDefinitionAtLoc(id, sm.getExpansionLoc(at));
        if (const clang::MacroInfo* macro = definition.getMacroInfo()) {
            site.name_kind = SemanticSite::Name::Macro;
            site.defined_at = where(macro->getDefinitionLoc());
            return;
        }
        if (auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(arg->IgnoreParenImpCasts()))
            if (auto* e = llvm::dyn_cast<clang::EnumConstantDecl>(ref->getDecl())) {
                site.name_kind = SemanticSite::Name::Enum;
                site.defined_at = where(e->getLocation());
            }
    }

    clang::CompilerInstance& ci_;
    const SemanticRequest& request_;
    SemanticScan& out_;
};

// An alias attribute (module_init() and MODULE_DEVICE_TABLE() of a module, __alias) makes C's
// Sema look its target up in the translation unit, and clang then reads every declaration of the
// precompiled preamble to build that lookup: two thirds of a driver's parse on its preamble (0.11
// s of 0.12 s a file on 6.1's iio drivers). What it gives (the target marked used, codegen's
// alias) is nothing a sleep's analysis reads, so the parse spells the attribute `__unused__`
// instead. In a kernel's C and headers that kbuild builds (not tools/, which is userspace),
// `alias` or `__alias__` followed by `(` is only ever that attribute; a file that used either
// name otherwise would fail to parse and say so.
constexpr const char* kNoAliasTargets = "#define alias(target) __unused__\n"
                                        "#define __alias__(target) __unused__\n";

class ScanAction : public clang::ASTFrontendAction {
  public:
    ScanAction(const SemanticRequest& request, SemanticScan& out, std::vector<std::string>& inputs)
        : request_(request), out_(out), inputs_(inputs) {}

    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                          llvm::StringRef) override {
        return std::make_unique<ScanConsumer>(ci, request_, out_);
    }

    // The predefines are set here: loading a precompiled preamble replaces them with its own,
    // and that happens after BeginSourceFileAction().
    void ExecuteAction() override {
        clang::Preprocessor& pp = getCompilerInstance().getPreprocessor();
        pp.setPredefines(pp.getPredefines() + kNoAliasTargets);
        ASTFrontendAction::ExecuteAction();
    }

    // The files the parse read (the file itself aside: its text is part of every key).
    void EndSourceFileAction() override {
        const clang::SourceManager& sm = getCompilerInstance().getSourceManager();
        for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
            if (it->first && it->first->getName() != request_.abs_path)
                inputs_.push_back(it->first->getName().str());
    }

  private:
    const SemanticRequest& request_;
    SemanticScan& out_;
    std::vector<std::string>& inputs_;
};

// The parse of one file: on its precompiled preamble when the request keeps them.
class ScanTool : public clang::tooling::FrontendActionFactory {
  public:
    ScanTool(const SemanticRequest& request, SemanticScan& out, std::string arguments)
        : request_(request), out_(out), arguments_(std::move(arguments)) {}

    std::unique_ptr<clang::FrontendAction> create() override {
        return std::make_unique<ScanAction>(request_, out_, inputs_);
    }

    // Every file the parse read, the preamble's headers included.
    const std::vector<std::string>& inputs() const { return inputs_; }
    // The first error of the file's prefix, when it was not parsed for it (use_preamble()).
    const std::string& prefix_failure() const { return prefix_failure_; }

    bool runInvocation(std::shared_ptr<clang::CompilerInvocation> invocation,
                       clang::FileManager* files,
                       std::shared_ptr<clang::PCHContainerOperations> pch,
                       clang::DiagnosticConsumer* diagnostics) override {
        // ScanConsumer picks which bodies to keep; the preamble keeps none of its headers'.
        invocation->getFrontendOpts().SkipFunctionBodies = true;
        if (!request_.preamble_dir.empty()) {
            auto main = llvm::MemoryBuffer::getMemBuffer(*request_.content, request_.abs_path,
                                                         /*RequiresNullTerminator=*/false);
            const PreambleUse use = use_preamble(
                *invocation, *main,
                llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>(&files->getVirtualFileSystem()),
                pch, request_.preamble_dir, arguments_);
            out_.preamble_reused = use.used && !use.made_now;
            if (use.used || !use.failed.empty())
                for (std::string& header : input_file_paths(use.headers))
                    inputs_.push_back(std::move(header));
            // The file's parse would fail on its prefix, as the preamble's did.
            if (!use.failed.empty()) {
                prefix_failure_ = use.failed;
                return false;
            }
        }
        return FrontendActionFactory::runInvocation(std::move(invocation), files, std::move(pch),
                                                    diagnostics);
    }

  private:
    const SemanticRequest& request_;
    SemanticScan& out_;
    std::string arguments_;
    std::vector<std::string> inputs_;
    std::string prefix_failure_;
};

} // namespace

void look_for(SemanticRequest& request, const Rule& rule) {
    for (const std::string& function : rule.functions)
        if (std::find(request.functions.begin(), request.functions.end(), function) ==
            request.functions.end())
            request.functions.push_back(function);
    for (const CallForm& form : rule.calls)
        if (std::find(request.forms.begin(), request.forms.end(),
                      std::make_pair(form.callee, form.through)) == request.forms.end())
            request.forms.emplace_back(form.callee, form.through);
}

SemanticScan semantic_scan(const SemanticRequest& request) {
    if (auto kept = cached_parse(request))
        return *kept;
    const long long started = now_ns();
    SemanticScan out;
    // The file's text comes from memory (scan_buffer passes edited text); its headers from disk.
    auto overlay =
        llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::getRealFileSystem());
    auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    overlay->pushOverlay(memory);
    memory->addFile(request.abs_path, 0,
                    llvm::MemoryBuffer::getMemBufferCopy(*request.content, request.abs_path));
    auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);

    std::vector<std::string> command{"clang", "-fsyntax-only"};
    command.insert(command.end(), request.args.begin(), request.args.end());
    command.push_back(request.abs_path);
    std::string arguments;
    for (const std::string& a : command)
        arguments += a + '\n';
    ScanTool tool(request, out, std::move(arguments));
    clang::tooling::ToolInvocation invocation(command, &tool, files.get(),
                                              std::make_shared<clang::PCHContainerOperations>());
    FirstError diagnostics;
    invocation.setDiagnosticConsumer(&diagnostics);
    bool ok = invocation.run();
    out.parsed = ok && diagnostics.getNumErrors() == 0;
    if (!out.parsed) {
        out.error = !tool.prefix_failure().empty() ? tool.prefix_failure()
                    : diagnostics.message.empty()  ? "the parse failed"
                                                   : diagnostics.message;
        out.sites.clear();
    }
    keep_parse(request, out, tool.inputs(), started);
    return out;
}

} // namespace ksweep
