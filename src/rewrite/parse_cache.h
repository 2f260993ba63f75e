// A file's semantic results kept in the cache, so a second scan of an unchanged tree (or part of
// it) parses nothing: keyed by everything the parse was asked — the compiler arguments, the
// file's path and content, the rules' call forms, the lexical engine's hints — and by the ksweep
// build that made them (core/build_identity.h); valid while every file the parse read has the
// same content (input_files.h). A failed parse is kept with its first error; one that failed on
// a header not found, only while the header is still in none of the places it was looked for.
#pragma once

#include "rewrite/semantic_engine.h"

#include <optional>
#include <string>
#include <vector>

namespace ksweep {

// <cache>/parses: where ScanOptions::cache_parses keeps them.
std::string parse_cache_dir();

// The results a parse of this request gave, when they are kept and every file it read is as
// it was; nullopt otherwise.
std::optional<SemanticScan> cached_parse(const SemanticRequest& request);

// Keeps a parse's results, a failed one's too (nothing without request.result_dir).
// `inputs`: every file the parse read, the precompiled preamble's headers included; `started_ns`:
// when it began (input_files.h).
void keep_parse(const SemanticRequest& request, const SemanticScan& scan,
                const std::vector<std::string>& inputs, long long started_ns);

} // namespace ksweep
