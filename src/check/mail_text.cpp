#include "check/mail_text.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <gmime/gmime.h>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace ksweep::check {

namespace {

struct GObjectUnref {
    void operator()(gpointer object) const {
        if (object)
            g_object_unref(object);
    }
};
template <class T> using GObjectPtr = std::unique_ptr<T, GObjectUnref>;

void init_gmime() {
    static std::once_flag once;
    std::call_once(once, [] { g_mime_init(); });
}

// git mailsplit's default (no --keep-cr): "\r\n" line ends become "\n".
std::string without_crlf(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i)
        if (text[i] != '\r' || i + 1 >= text.size() || text[i + 1] != '\n')
            out += text[i];
    return out;
}

std::string stream_bytes(GMimeStream* stream) {
    GObjectPtr<GMimeStream> out(g_mime_stream_mem_new());
    g_mime_stream_reset(stream);
    g_mime_stream_write_to_stream(stream, out.get());
    GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out.get()));
    return std::string(reinterpret_cast<const char*>(bytes->data), bytes->len);
}

// A run of the body that came from one MIME part, with the charset that part declares.
struct Segment {
    std::string text;
    std::string charset;
};

bool is_decoded(GMimeContentEncoding encoding) {
    return encoding == GMIME_CONTENT_ENCODING_BASE64 ||
           encoding == GMIME_CONTENT_ENCODING_QUOTEDPRINTABLE;
}

// A leaf part's bytes as git mailinfo reads them: quoted-printable and base64 decoded, any
// other encoding (7bit, 8bit, binary, and uuencode, which mailinfo does not know) as it is.
std::string part_text(GMimePart* part) {
    GMimeDataWrapper* content = g_mime_part_get_content(part);
    if (!content)
        return "";
    if (!is_decoded(g_mime_part_get_content_encoding(part)))
        return stream_bytes(g_mime_data_wrapper_get_stream(content));
    GObjectPtr<GMimeStream> out(g_mime_stream_mem_new());
    g_mime_data_wrapper_write_to_stream(content, out.get());
    GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(out.get()));
    return std::string(reinterpret_cast<const char*>(bytes->data), bytes->len);
}

// The body's segments in git mailinfo's order. Within a multipart, the line break before each
// boundary belongs to the boundary for MIME (GMime leaves it out) but to the part's last line
// for mailinfo, except in base64, whose decoder drops it; every closing boundary adds an empty
// line. GMime stops nesting at its own depth limit, which bounds this recursion.
void append_segments(GMimeObject* object, bool in_multipart, std::vector<Segment>& out) {
    if (GMIME_IS_MULTIPART(object)) {
        GMimeMultipart* multipart = GMIME_MULTIPART(object);
        const int count = g_mime_multipart_get_count(multipart);
        for (int i = 0; i < count; ++i)
            append_segments(g_mime_multipart_get_part(multipart, i), true, out);
        out.push_back({"\n", ""});
        return;
    }
    Segment segment;
    if (const char* charset = g_mime_object_get_content_type_parameter(object, "charset"))
        segment.charset = charset;
    bool base64 = false;
    if (GMIME_IS_PART(object)) {
        GMimePart* part = GMIME_PART(object);
        segment.text = part_text(part);
        base64 = g_mime_part_get_content_encoding(part) == GMIME_CONTENT_ENCODING_BASE64;
    } else if (GMIME_IS_MESSAGE_PART(object)) {
        // message/rfc822: mailinfo reads the embedded mail as lines, headers and all.
        if (GMimeMessage* inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(object))) {
            GObjectPtr<GMimeStream> stream(g_mime_stream_mem_new());
            g_mime_object_write_to_stream(GMIME_OBJECT(inner), nullptr, stream.get());
            segment.text = stream_bytes(stream.get());
        }
    }
    if (in_multipart && !base64)
        segment.text += '\n';
    out.push_back(std::move(segment));
}

// git mailinfo's patchbreak(): "diff -", "Index: ", "--- <name>" or "---" and blanks. `line`
// holds its '\n' unless it is the unterminated end of a part.
bool is_patch_break(std::string_view line) {
    if (line.starts_with("diff -") || line.starts_with("Index: "))
        return true;
    if (line.size() < 4 || !line.starts_with("---"))
        return false;
    auto at = [&](size_t i) { return i < line.size() ? static_cast<unsigned char>(line[i]) : 0; };
    if (at(3) == ' ' && !std::isspace(at(4)))
        return true;
    for (size_t i = 3; i < line.size(); ++i) {
        if (line[i] == '\n')
            return true;
        if (!std::isspace(at(i)))
            break;
    }
    return false;
}

// git's same_encoding() against UTF-8: its spellings need no conversion.
bool is_utf8(std::string charset) {
    std::transform(charset.begin(), charset.end(), charset.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    return charset == "utf-8" || charset == "utf8";
}

// mailinfo converts each commit message line to UTF-8 before it asks whether the line breaks
// the patch off, so the break line leaves converted; the patch lines after it do not.
std::string to_utf8(std::string_view line, const std::string& charset) {
    if (charset.empty() || is_utf8(charset))
        return std::string(line);
    GError* error = nullptr;
    gsize written = 0;
    gchar* converted =
        g_convert(line.data(), static_cast<gssize>(line.size()), "UTF-8",
                  g_mime_charset_iconv_name(charset.c_str()), nullptr, &written, &error);
    g_clear_error(&error);
    if (!converted)
        throw MailError("charset '" + charset +
                        "' cannot be converted to UTF-8 (git am refuses the mail too)");
    std::string out(converted, written);
    g_free(converted);
    return out;
}

// The segments joined, the patch break found line by line within each segment (mailinfo's
// lines never span parts) and its line converted.
void join(const std::vector<Segment>& segments, MailText& mail) {
    for (const Segment& segment : segments) {
        std::string_view text = segment.text;
        if (mail.patch_start != std::string::npos) {
            mail.body += text;
            continue;
        }
        for (size_t start = 0; start < text.size();) {
            const size_t end = std::min(text.find('\n', start), text.size() - 1) + 1;
            const std::string_view line = text.substr(start, end - start);
            if (mail.patch_start == std::string::npos && is_patch_break(line)) {
                mail.patch_start = mail.body.size();
                mail.body += to_utf8(line, segment.charset);
            } else {
                mail.body += line;
            }
            start = end;
        }
    }
}

// The value of a "boundary=" parameter in a header line, if it has one: quoted or a token.
std::optional<std::string> boundary_in(std::string_view line) {
    std::string lowered(line);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const size_t at = lowered.find("boundary=");
    if (at == std::string::npos)
        return std::nullopt;
    std::string_view value = line.substr(at + 9);
    if (value.starts_with('"'))
        return std::string(value.substr(1, value.find('"', 1) - 1));
    return std::string(value.substr(0, value.find_first_of("; \t")));
}

// Counts what GMime would make objects of, without building any: the lines of every header
// block (the mail's, and each part's after a line that starts a part) and the parts, a line
// counting as a part's start when it begins with "--" and a declared boundary (as a prefix: never
// fewer than GMime's own count).
void check_structure(std::string_view text) {
    std::vector<std::string> boundaries;
    size_t header_lines = 0, parts = 0;
    bool in_headers = true;
    for (size_t start = 0; start < text.size();) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view line = text.substr(start, end - start);
        start = end + 1;
        if (in_headers) {
            if (line.empty()) {
                in_headers = false;
                continue;
            }
            if (++header_lines > kMaxHeaderLines)
                throw MailError("more than " + std::to_string(kMaxHeaderLines) +
                                " header lines, the most ksweep reads in one mail");
            if (auto boundary = boundary_in(line); boundary && !boundary->empty()) {
                if (boundaries.size() == kMaxBoundaries)
                    throw MailError("more than " + std::to_string(kMaxBoundaries) +
                                    " multipart boundaries, the most ksweep reads in one mail");
                boundaries.push_back("--" + *boundary);
            }
            continue;
        }
        if (!line.starts_with("--"))
            continue;
        for (const std::string& boundary : boundaries)
            if (line.starts_with(boundary)) {
                if (line.substr(boundary.size()).starts_with("--"))
                    break; // the closing delimiter: no part follows
                if (++parts > kMaxMimeParts)
                    throw MailError("more than " + std::to_string(kMaxMimeParts) +
                                    " MIME parts, the most ksweep reads in one mail");
                in_headers = true;
                break;
            }
    }
}

} // namespace

MailText read_mail(std::string_view message) {
    init_gmime();
    const std::string text = without_crlf(message);
    check_structure(text);
    GObjectPtr<GMimeStream> stream(g_mime_stream_mem_new_with_buffer(text.data(), text.size()));
    GObjectPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));
    g_mime_parser_set_format(parser.get(), GMIME_FORMAT_MESSAGE);
    GObjectPtr<GMimeMessage> mail(g_mime_parser_construct_message(parser.get(), nullptr));
    MailText out;
    if (!mail)
        return out;
    if (const char* subject = g_mime_message_get_subject(mail.get()))
        out.subject = subject;
    // Decoded words may hold any byte; the subject is printed on terminals and in reports.
    std::replace_if(
        out.subject.begin(), out.subject.end(),
        [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }, ' ');
    const gint64 headers_end = g_mime_parser_get_headers_end(parser.get());
    if (headers_end > 0) {
        const size_t end = std::min(static_cast<size_t>(headers_end), text.size());
        out.body_line =
            2 + static_cast<unsigned>(std::count(text.begin(), text.begin() + end, '\n'));
    }
    std::vector<Segment> segments;
    if (GMimeObject* body = g_mime_message_get_mime_part(mail.get()))
        append_segments(body, false, segments);
    join(segments, out);
    return out;
}

} // namespace ksweep::check
