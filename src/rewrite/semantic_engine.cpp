#include "rewrite/semantic_engine.h"

#include "rewrite/first_error.h"
#include "rewrite/int_eval.h"
#include "rewrite/loop_analysis.h"

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
using ExpansionKey = std::tuple<unsigned, std::string, unsigned>;

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
        std::map<unsigned, SemanticSite> sites;
        std::map<ExpansionKey, SemanticExpansion> expansions;
        for (clang::Decl* d : ctx.getTranslationUnitDecl()->decls()) {
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
                clang::ASTContext& ctx, std::map<unsigned, SemanticSite>& sites) {
        const auto& sm = ctx.getSourceManager();
        clang::SourceLocation spelling = sm.getSpellingLoc(call.getBeginLoc());
        if (sm.getFileID(spelling) != sm.getMainFileID() || call.getNumArgs() < 1)
            return; // spelled in a header's macro: that header is scanned on its own
        const clang::Expr* arg = value_argument(call);
        if (!arg)
            return;
        SemanticSite site;
        site.call_begin = sm.getFileOffset(spelling);
        site.function = function ? function->getNameAsString() : "";
        site.value = fold_int(arg, ctx);
        name_constant(site, arg, call.getBeginLoc());
        if (function)
            site.loop = analyse_loop(call, *function, ctx);
        else
            site.loop.ends_by = LoopEnd::None;

        auto [it, inserted] = sites.emplace(site.call_begin, site);
        if (inserted)
            return;
        if (it->second.value != site.value)
            it->second.conflicting = true; // one #define body, expansions that differ
        it->second.loop = tighter_loop(it->second.loop, site.loop);
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

    // The expression the rule's value is: the argument, or ARG in callee(through(ARG)). Null
    // when the call has none of the rule's shapes (schedule_timeout(HZ / 10)).
    const clang::Expr* value_argument(const clang::CallExpr& call,
                                      std::string* through = nullptr) const {
        const clang::FunctionDecl* callee = call.getDirectCallee();
        if (!callee || call.getNumArgs() < 1)
            return nullptr;
        const std::string name = callee->getNameAsString();
        const clang::Expr* arg = call.getArg(0);
        if (const auto* inner = llvm::dyn_cast<clang::CallExpr>(arg->IgnoreParenImpCasts()))
            if (const clang::FunctionDecl* via = inner->getDirectCallee();
                via && inner->getNumArgs() == 1 && has_form(name, via->getNameAsString())) {
                if (through)
                    *through = via->getNameAsString();
                return inner->getArg(0);
            }
        return has_form(name, "") ? arg : nullptr;
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
        std::string through;
        const clang::Expr* arg = value_argument(call, &through);
        if (!arg)
            return;
        SemanticExpansion e;
        e.through = through;
        e.use_begin = sm.getFileOffset(written);
        e.callee = call.getDirectCallee() ? call.getDirectCallee()->getNameAsString() : "";
        e.value = fold_int(arg, ctx);
        e.spelled_at = where(spelling);
        e.function = function;
        const auto [file, offset] = sm.getDecomposedLoc(spelling);
        const auto* entry = sm.getFileEntryForID(file);
        ExpansionKey key{e.use_begin, entry ? entry->getName().str() : "", offset};
        out.emplace(std::move(key), std::move(e));
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

class ScanAction : public clang::ASTFrontendAction {
  public:
    ScanAction(const SemanticRequest& request, SemanticScan& out) : request_(request), out_(out) {}

    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                          llvm::StringRef) override {
        ci.getFrontendOpts().SkipFunctionBodies = true; // ScanConsumer picks which to keep
        return std::make_unique<ScanConsumer>(ci, request_, out_);
    }

  private:
    const SemanticRequest& request_;
    SemanticScan& out_;
};

} // namespace

void look_for(SemanticRequest& request, const Rule& rule) {
    request.functions = rule.functions;
    request.forms.clear();
    for (const CallForm& form : rule.calls)
        request.forms.emplace_back(form.callee, form.through);
}

SemanticScan semantic_scan(const SemanticRequest& request) {
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
    clang::tooling::ToolInvocation invocation(command, std::make_unique<ScanAction>(request, out),
                                              files.get());
    FirstError diagnostics;
    invocation.setDiagnosticConsumer(&diagnostics);
    bool ok = invocation.run();
    out.parsed = ok && diagnostics.getNumErrors() == 0;
    if (!out.parsed) {
        out.error = diagnostics.message.empty() ? "the parse failed" : diagnostics.message;
        out.sites.clear();
    }
    return out;
}

} // namespace ksweep
