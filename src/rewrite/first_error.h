// Keeps a parse's first error, "file:line: message", for the one line that says why a result is
// missing; everything else the compiler says is dropped. The semantic engine and the sleep
// evaluator both parse kernel sources this way.
#pragma once

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/SmallString.h>
#include <string>

namespace ksweep {

class FirstError : public clang::DiagnosticConsumer {
  public:
    void HandleDiagnostic(clang::DiagnosticsEngine::Level level,
                          const clang::Diagnostic& info) override {
        DiagnosticConsumer::HandleDiagnostic(level, info);
        if (level < clang::DiagnosticsEngine::Error || !message.empty())
            return;
        llvm::SmallString<256> text;
        info.FormatDiagnostic(text);
        message = text.str().str();
        if (info.hasSourceManager() && info.getLocation().isValid()) {
            auto p = info.getSourceManager().getPresumedLoc(info.getLocation());
            if (p.isValid())
                message = std::string(p.getFilename()) + ":" + std::to_string(p.getLine()) + ": " +
                          message;
        }
    }
    std::string message;
};

} // namespace ksweep
