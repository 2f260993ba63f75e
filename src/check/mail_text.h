// One mail as `git am` reads it (git mailsplit, then git mailinfo), decoded with GMime.
//
// The body is what git mailinfo reads: each MIME part in order (multipart mails: the commit
// message part and a text/plain or text/x-patch part, inline or attachment, at any depth),
// quoted-printable and base64 parts decoded, an empty line at each closing boundary, CRs of
// CRLF line ends removed as git mailsplit removes them. The patch is the body from git
// mailinfo's patch break on (the first "diff -", "Index: " or "---" line), byte for byte what
// `git mailinfo MSG PATCH` writes to PATCH: its text is not converted to UTF-8, since git am
// applies those bytes to the tree's bytes; only the break line itself is, as mailinfo does.
// The subject is decoded (RFC 2047) and converted to UTF-8.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace ksweep::check {

struct MailText {
    std::string subject; // decoded, unfolded, control bytes as spaces; "" when none
    std::string body;    // as git mailinfo reads it
    size_t patch_start = std::string::npos; // where git mailinfo's patch begins in `body`
    unsigned body_line = 1;                 // line of the message its body starts at (1-based)

    std::string_view patch() const {
        return patch_start == std::string::npos ? std::string_view()
                                                : std::string_view(body).substr(patch_start);
    }
};

// What GMime builds an object for, counted before it parses a mail: each costs it hundreds of
// bytes to kilobytes (a 7 MB mail of one-line headers took 586 MB), so a mail past any of these
// is refused. Real mails have tens of headers and a few parts; git am itself refuses more than
// 5 nested boundaries.
inline constexpr size_t kMaxHeaderLines = 10000; // in the mail's and its parts' header blocks
inline constexpr size_t kMaxMimeParts = 1000;
inline constexpr size_t kMaxBoundaries = 64;

// A mail git am would refuse as well (a charset it cannot convert), or one past the limits
// above: what() says why.
struct MailError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `message`: one message of a mailbox without its separator line, headers first.
MailText read_mail(std::string_view message);

} // namespace ksweep::check
