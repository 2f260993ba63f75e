#include "rewrite/preamble_cache.h"

#include "core/cache_dir.h"
#include "core/cache_entry.h"
#include "core/file_io.h"
#include "core/file_lock.h"
#include "core/json.h"
#include "core/sha256.h"
#include "rewrite/first_error.h"
#include "rewrite/input_files.h"
#include "rewrite/missing_header.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/Version.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/PrecompiledPreamble.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

namespace fs = std::filesystem;

namespace ksweep {

namespace {

constexpr const char* kMarker = ".ksweep-preamble";
constexpr const char* kPch = "preamble.pch";
constexpr const char* kInputs = "headers"; // input_files.h

// The files the preamble's parse read.
class HeaderRecorder : public clang::PreambleCallbacks {
  public:
    void AfterExecute(clang::CompilerInstance& ci) override {
        const clang::SourceManager& sm = ci.getSourceManager();
        for (auto it = sm.fileinfo_begin(); it != sm.fileinfo_end(); ++it)
            if (it->first)
                files.push_back(it->first->getName().str());
    }
    std::vector<std::string> files;
};

struct NotKept {
    std::string why;
    // When its headers did not parse: the first error, the files read up to it, and when.
    std::string error;
    std::vector<std::string> headers;
    long long started = 0;
};

// Parses the prefix into <entry>/preamble.pch and lists the headers it read.
void make_preamble(const fs::path& entry, const clang::CompilerInvocation& invocation,
                   const llvm::MemoryBuffer& main, const clang::PreambleBounds& bounds,
                   const llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem>& vfs,
                   const std::shared_ptr<clang::PCHContainerOperations>& pch) {
    FirstError errors;
    llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> options =
        new clang::DiagnosticOptions(invocation.getDiagnosticOpts());
    llvm::IntrusiveRefCntPtr<clang::DiagnosticsEngine> diagnostics =
        clang::CompilerInstance::createDiagnostics(options.get(), &errors, false);
    HeaderRecorder recorder;
    const long long started = now_ns();
    auto preamble = clang::PrecompiledPreamble::Build(invocation, &main, bounds, *diagnostics, vfs,
                                                      pch, /*StoreInMemory=*/false, recorder);
    if (!preamble)
        throw NotKept{"clang could not make it: " + preamble.getError().message(), {}, {}, 0};
    // The engine's count: the consumer does not see every error the preamble's parse had.
    if (diagnostics->hasErrorOccurred() || errors.getNumErrors() > 0)
        throw NotKept{"its headers do not parse" +
                          (errors.message.empty() ? "" : ": " + errors.message),
                      errors.message, recorder.files, started};
    // Where clang wrote it: the path it would have a parse include.
    clang::CompilerInvocation probe(invocation);
    auto probe_vfs = vfs;
    auto copy = llvm::MemoryBuffer::getMemBufferCopy(main.getBuffer(), main.getBufferIdentifier());
    preamble->AddImplicitPreamble(probe, probe_vfs, copy.get());
    probe.getPreprocessorOpts().RemappedFileBuffers.clear(); // `copy` is freed here, not there
    std::error_code ec;
    fs::copy_file(probe.getPreprocessorOpts().ImplicitPCHInclude, entry / kPch, ec);
    if (ec)
        throw NotKept{"cannot keep it in " + entry.string() + ": " + ec.message(), {}, {}, 0};

    std::vector<std::string> headers;
    for (const std::string& file : recorder.files)
        if (file != main.getBufferIdentifier()) // its prefix is in the key
            headers.push_back(file);
    if (!write_input_files(entry / kInputs, headers, started))
        throw NotKept{"cannot read its headers again", {}, {}, 0};
}

// A prefix whose parse failed on a missing header: <key>.failed/, holding failure.json
// ({"error", "missing"}) and headers (the files read up to the error, input_files.h). The file's
// own parse fails with the same first error while those files are unchanged and the header is
// still missing.
fs::path failure_of(const fs::path& entry) {
    return fs::path(entry.string() + ".failed") / "failure.json";
}
fs::path failure_headers_of(const fs::path& entry) {
    return fs::path(entry.string() + ".failed") / "headers";
}

std::optional<std::string> kept_failure(const fs::path& entry) {
    auto text = read_file(failure_of(entry));
    if (!text || !input_files_unchanged(failure_headers_of(entry)))
        return std::nullopt;
    try {
        const Json j = Json::parse(*text);
        if (!still_missing(j.at("missing")))
            return std::nullopt;
        std::error_code ec; // its time is its last use (`ksweep cache`)
        fs::last_write_time(failure_of(entry).parent_path(), fs::file_time_type::clock::now(), ec);
        return j.at("error").get<std::string>();
    } catch (const std::exception&) {
        return std::nullopt; // torn or foreign: try again
    }
}

// Keeps `failed` when it is a missing header's; true when it did.
bool keep_failure(const fs::path& entry, const NotKept& failed, const std::string& arguments,
                  const std::string& main) {
    std::vector<std::string> args, headers;
    for (size_t at = 0, end; (end = arguments.find('\n', at)) != std::string::npos; at = end + 1)
        args.push_back(arguments.substr(at, end - at));
    const auto missing = missing_header(failed.error, args, "");
    if (!missing)
        return false;
    for (const std::string& file : failed.headers)
        if (file != main)
            headers.push_back(file);
    std::error_code ec;
    fs::create_directories(failure_of(entry).parent_path(), ec);
    // The list first: a failure without its list is never trusted.
    if (!write_input_files(failure_headers_of(entry), headers, failed.started) ||
        !write_file_whole(failure_of(entry),
                          json_text(Json{{"error", failed.error}, {"missing", *missing}}, -1)))
        return false;
    // What the failed attempt left is no entry (`ksweep cache` would call it interrupted); one
    // another run is making now is left to it.
    FileLock lock(entry.string() + ".lock", /*wait=*/false);
    if (lock.held() && !cache_entry_complete(entry, kMarker))
        fs::remove_all(entry, ec);
    return true;
}

void parse_on(clang::CompilerInvocation& invocation, const fs::path& entry,
              const clang::PreambleBounds& bounds) {
    clang::PreprocessorOptions& pp = invocation.getPreprocessorOpts();
    pp.ImplicitPCHInclude = (entry / kPch).string();
    pp.PrecompiledPreambleBytes = {bounds.Size, bounds.PreambleEndsAtStartOfLine};
    // Its headers were checked above, by content.
    pp.DisablePCHOrModuleValidation = clang::DisableValidationForModuleKind::PCH;
    // The preamble was made with the -include files: including them again repeats them.
    pp.Includes.clear();
}

} // namespace

std::string preamble_cache_dir() {
    return cache_dir() + "/preambles";
}

PreambleUse use_preamble(clang::CompilerInvocation& invocation, const llvm::MemoryBuffer& main,
                         llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs,
                         std::shared_ptr<clang::PCHContainerOperations> pch, const std::string& dir,
                         const std::string& arguments) {
    PreambleUse use;
    const clang::PreambleBounds bounds =
        clang::ComputePreambleBounds(*invocation.getLangOpts(), main.getMemBufferRef(), 0);
    if (bounds.Size == 0) {
        use.why_not = "the file has no header prefix";
        return use;
    }
    Sha256 key_hash;
    key_hash.update("ksweep preamble v1\n" CLANG_VERSION_STRING "\n");
    key_hash.update(arguments + "\n" + main.getBufferIdentifier().str() + "\n");
    key_hash.update(bounds.PreambleEndsAtStartOfLine ? "line\n" : "mid\n");
    key_hash.update(main.getBuffer().substr(0, bounds.Size));
    const std::string key = to_hex(key_hash.finish()).substr(0, 24);
    const fs::path entry = fs::path(dir) / key;

    if (auto error = kept_failure(entry)) {
        use.why_not = "its headers do not parse: " + *error;
        use.failed = *error;
        use.headers = failure_headers_of(entry);
        return use;
    }
    if (cache_entry_complete(entry, kMarker) && !input_files_unchanged(entry / kInputs)) {
        FileLock lock(entry.string() + ".lock");
        std::error_code ec;
        fs::remove(entry / kMarker, ec); // stale: the next make_cache_entry makes it again
    }
    try {
        CacheEntry made = make_cache_entry(
            dir, key, kMarker, main.getBufferIdentifier().str() + "\n",
            [&](const fs::path& d) { make_preamble(d, invocation, main, bounds, vfs, pch); });
        use.made_now = made.made_now;
        if (made.made_now) {
            std::error_code ec; // a failure kept from before the header appeared
            fs::remove_all(failure_of(entry).parent_path(), ec);
        }
    } catch (const NotKept& e) {
        use.why_not = e.why;
        if (!e.error.empty() &&
            keep_failure(entry, e, arguments, main.getBufferIdentifier().str())) {
            use.failed = e.error;
            use.headers = failure_headers_of(entry);
        } else {
            std::error_code ec; // a failure kept earlier no longer holds: not a list to trust
            fs::remove_all(failure_of(entry).parent_path(), ec);
        }
        return use;
    } catch (const std::runtime_error& e) {
        use.why_not = e.what();
        return use;
    }
    parse_on(invocation, entry, bounds);
    use.used = true;
    use.headers = entry / kInputs;
    return use;
}

} // namespace ksweep
