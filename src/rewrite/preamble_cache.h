// A file's header prefix — its leading comments, #includes and #defines, up to its first line of
// code (clang's preamble) — parsed once and kept in the cache as a clang precompiled preamble, so
// the next parse of the file (scan again, fix's re-scan, check of a patch to it) reads only the
// file's own code: what clangd does in memory, kept on disk between runs.
//
// Keyed by the compiler arguments (the tree's and the build dir's include paths, the flags of the
// file's Makefile), the file's path and the prefix's bytes; a change to the prefix is another
// key. Each preamble records the headers it read with their size, modification time and SHA-256,
// and is used only while every one still has the same content: a header edited since makes it
// again. One whose headers did not parse cleanly is never kept (the parse then reports the error
// as without one); when that was a missing header, the failure is kept, so the next parse of a
// file with that prefix fails at once, with the same error, while nothing it read has changed
// and the header is still missing (an arch header on another arch's build dir). Made under a
// lock, trusted only once complete (core/cache_entry.h).
#pragma once

#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Serialization/PCHContainerOperations.h>
#include <filesystem>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <memory>
#include <string>

namespace ksweep {

// <cache>/preambles: where ScanOptions::preambles keeps them.
std::string preamble_cache_dir();

struct PreambleUse {
    bool used = false;     // the invocation parses on a preamble
    bool made_now = false; // ... made in this call (none, or a stale one, was there)
    std::string why_not;   // when not used: the file has no prefix, or why none could be made
    // When the prefix's parse failed on a missing header (in this call, or as kept from an
    // earlier one while its headers are unchanged and that one still missing): its first
    // error, with which the file's own parse fails too; it need not be parsed.
    std::string failed;
    std::filesystem::path headers; // used, or failed: the list of the headers read (input_files.h)
};

// Sets `invocation` (its main file is `main`, read through `vfs`) up to parse on the preamble
// for its prefix, making one in `dir` when there is none or its headers changed. Leaves the
// invocation as it was when the file has no prefix or none can be made. `arguments` are the
// compiler arguments the invocation was made from (part of the key).
PreambleUse use_preamble(clang::CompilerInvocation& invocation, const llvm::MemoryBuffer& main,
                         llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> vfs,
                         std::shared_ptr<clang::PCHContainerOperations> pch, const std::string& dir,
                         const std::string& arguments);

} // namespace ksweep
