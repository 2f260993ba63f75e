// git format-patch mails from commits.
//
// libgit2's git_email_create_from_diff writes the From line, headers, message, diffstat and
// diff; it does not write threading headers, To/Cc, base-commit or git's "-- " signature.
// This file adds those in the places `git format-patch` puts them, so that a mail is byte for
// byte what git writes for the same commit and options (tests/series/format_patch_test.cpp).
#pragma once

#include "git/git_handle.h"

#include <string>
#include <vector>

namespace ksweep::series {

struct MailOptions {
    size_t number = 1; // M of M/N
    size_t total = 1;  // N; 1 without a cover letter writes no numbers
    int reroll = 0;    // vN; 0 or 1: none, as for a first posting
    std::vector<std::string> to, cc;
    std::string message_id;  // without <>; empty: no threading headers
    std::string in_reply_to; // the cover letter's id, shallow threading like git --thread
    std::string base_commit; // hex; printed at the bottom when not empty
    std::string signature;   // the line after "-- "
    int abbrev = 12;         // blob id length in "index" lines (core.abbrev)
};

// One mail, as `git format-patch` would write it for `commit` (not a merge).
std::string format_patch_mail(git_repository* repo, git_commit* commit, const MailOptions& opts);

// "v2-0001-tpm-tpm_nsc-use-usleep_range.patch": git's sanitized, length-capped file name.
std::string patch_file_name(size_t number, const std::string& subject, int reroll);

// "[PATCH v2 3/7]" (the brackets included).
std::string subject_prefix(size_t number, size_t total, int reroll);

// To:/Cc: headers the way git format-patch --to/--cc folds them.
std::string address_header(const std::string& name, const std::vector<std::string>& addresses);

// "From: ..." as git writes it (pretty.c): RFC 2047 for non-ASCII names (when `encode`; git
// does not encode its cover letter's headers), RFC 822 quotes for names with specials
// ("David S. Miller"), folded at 78 columns.
std::string from_header(const std::string& name, const std::string& email, bool encode);

// The text after "Subject: [PATCH] " as git writes it: folded, or RFC 2047 encoded when not
// ASCII and `encode`.
std::string encoded_subject(const std::string& header_start, const std::string& title, bool encode);

// git's MIME headers for a message with non-ASCII text, else "".
std::string mime_headers_for(const std::string& text);

// RFC 2822 date as git prints it: "Sun, 29 Nov 2026 22:41:33 +0000".
std::string rfc2822_date(long long seconds, int offset_minutes);

// git's message ids: "<sha>.<time>.git.<email>" and "cover.<time>.git.<email>".
std::string message_id_for(const std::string& what, long long time, const std::string& email);

} // namespace ksweep::series
