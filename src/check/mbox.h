// Splitting what `check` reads into messages, as `git mailsplit` splits a mailbox before
// `git am` reads each message: on "From <sha|sender> <weekday> ..." separator lines. An input
// without a separator is one message (a single mail, or a bare diff).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ksweep::check {

struct MboxMessage {
    std::string_view text;   // the message, its separator line excluded
    unsigned first_line = 0; // 1-based input line the message starts at (its separator's)
    unsigned text_line = 0;  // 1-based input line of `text`'s first line
    std::string commit;      // the sha of a "From <sha> Mon Sep 17 00:00:00 2001" separator
};

// "From <sha or sender> <weekday> ...": the line git format-patch and mbox writers put before
// every message.
bool is_mbox_separator(std::string_view line);

// The messages of `input`, in order. Text before the first separator (an mbox "preamble") is
// dropped unless it holds a hunk ("@@ "): then it is a message of its own.
std::vector<MboxMessage> split_mbox(std::string_view input);

// True when `text` starts with a mail header ("Name: value" with RFC 5322's field-name
// characters), as git mailinfo decides where a message's headers are. A bare diff ("diff
// --git", "--- a/x", "Index: x") does not.
bool starts_with_mail_header(std::string_view text);

} // namespace ksweep::check
