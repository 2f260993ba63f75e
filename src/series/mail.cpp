#include "series/mail.h"

#include "series/text_wrap.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <ctime>

namespace ksweep::series {

using namespace ksweep::git;

namespace {

// libgit2 ends every mail with "--\nlibgit2 <version>\n\n"; git ends it with "-- \n<sig>\n\n".
constexpr std::string_view kLibgit2Trailer = "--\nlibgit2 " LIBGIT2_VERSION "\n\n";

std::string email_body(git_repository* repo, git_commit* commit, const MailOptions& opts) {
    git_commit* parent_raw = nullptr;
    check(git_commit_parent(&parent_raw, commit, 0), "git_commit_parent");
    Commit parent(parent_raw);
    Tree old_tree = commit_tree(parent.get());
    Tree new_tree = commit_tree(commit);

    git_email_create_options email_opts = GIT_EMAIL_CREATE_OPTIONS_INIT;
    email_opts.diff_opts.id_abbrev = static_cast<uint16_t>(opts.abbrev);
    email_opts.reroll_number = opts.reroll > 1 ? static_cast<size_t>(opts.reroll) : 0;
    if (opts.total > 1)
        email_opts.flags |= GIT_EMAIL_CREATE_ALWAYS_NUMBER;

    git_diff* raw_diff = nullptr;
    check(git_diff_tree_to_tree(&raw_diff, repo, old_tree.get(), new_tree.get(),
                                &email_opts.diff_opts),
          "git_diff_tree_to_tree");
    Diff diff(raw_diff);
    // git format-patch detects renames by default; so does git_email_create_from_commit.
    check(git_diff_find_similar(diff.get(), &email_opts.diff_find_opts), "git_diff_find_similar");

    Buf out;
    check(git_email_create_from_diff(&out.buf, diff.get(), opts.number, opts.total,
                                     git_commit_id(commit), git_commit_summary(commit),
                                     git_commit_body(commit), git_commit_author(commit),
                                     &email_opts),
          "git_email_create_from_diff");
    return out.str();
}

size_t line_end(const std::string& text, size_t from) {
    size_t nl = text.find('\n', from);
    return nl == std::string::npos ? text.size() : nl + 1;
}

// The end of the Subject header, folded continuation lines included.
size_t after_subject(const std::string& mail) {
    size_t pos = mail.find("\nSubject: ");
    if (pos == std::string::npos)
        throw GitError("libgit2 wrote a mail without a Subject header");
    pos = line_end(mail, pos + 1);
    while (pos < mail.size() && (mail[pos] == ' ' || mail[pos] == '\t'))
        pos = line_end(mail, pos);
    return pos;
}

// git's header encodings (pretty.c): RFC 2047 "Q" words for non-ASCII names and subjects,
// RFC 822 quotes for names with specials.
enum class Rfc2047 { Subject, Address };

bool non_ascii(char c) {
    return static_cast<unsigned char>(c) >= 0x80;
}

bool needs_rfc2047(const std::string& s) {
    for (size_t i = 0; i < s.size(); ++i)
        if (non_ascii(s[i]) || s[i] == '\n' || (s[i] == '=' && i + 1 < s.size() && s[i + 1] == '?'))
            return true;
    return false;
}

bool is_rfc2047_special(char c, Rfc2047 type) {
    unsigned char u = static_cast<unsigned char>(c);
    if (non_ascii(c) || !std::isprint(u))
        return true;
    if (std::isspace(u) || c == '=' || c == '?' || c == '_')
        return true;
    if (type != Rfc2047::Address)
        return false;
    return !(std::isalnum(u) || c == '!' || c == '*' || c == '+' || c == '-' || c == '/');
}

size_t utf8_length(unsigned char lead) {
    if ((lead & 0xE0) == 0xC0)
        return 2;
    if ((lead & 0xF0) == 0xE0)
        return 3;
    if ((lead & 0xF8) == 0xF0)
        return 4;
    return 1;
}

// git's add_rfc2047(): `column` is where the encoded text starts on its line.
std::string rfc2047(const std::string& text, size_t column, Rfc2047 type) {
    constexpr size_t kMaxEncoded = 76;
    const std::string open = "=?UTF-8?q?";
    std::string out = open;
    size_t line_len = column + open.size();
    for (size_t i = 0; i < text.size();) {
        size_t n = std::min(utf8_length(static_cast<unsigned char>(text[i])), text.size() - i);
        bool special = n > 1 || is_rfc2047_special(text[i], type);
        size_t encoded_len = special ? 3 * n : 1;
        if (line_len + encoded_len + 2 > kMaxEncoded) {
            out += "?=\n " + open;
            line_len = open.size() + 1;
        }
        for (size_t k = 0; k < n; ++k) {
            char hex[4];
            std::snprintf(hex, sizeof hex, "=%02X", static_cast<unsigned char>(text[i + k]));
            out += special ? std::string(hex) : std::string(1, text[i + k]);
        }
        line_len += encoded_len;
        i += n;
    }
    return out + "?=";
}

} // namespace

std::string from_header(const std::string& name, const std::string& email, bool encode) {
    std::string out = "From: ";
    size_t max_length = 78;
    if (encode && needs_rfc2047(name)) {
        out += rfc2047(name, out.size(), Rfc2047::Address);
        max_length = 76;
    } else if (name.find_first_of("()<>[]:;@,.\"\\") != std::string::npos) {
        std::string quoted = "\"";
        for (char c : name)
            quoted += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
        out += git_wrap(quoted + "\"", -6, 1, 78);
    } else {
        out += git_wrap(name, -6, 1, 78);
    }
    size_t nl = out.rfind('\n');
    size_t last_line = nl == std::string::npos ? out.size() : out.size() - nl - 1;
    if (max_length < last_line + 2 + email.size() + 1)
        out += '\n';
    return out + " <" + email + ">\n";
}

std::string mime_headers_for(const std::string& text) {
    if (std::none_of(text.begin(), text.end(), non_ascii))
        return "";
    return "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
           "Content-Transfer-Encoding: 8bit\n";
}

std::string encoded_subject(const std::string& header_start, const std::string& title,
                            bool encode) {
    return encode && needs_rfc2047(title)
               ? rfc2047(title, header_start.size(), Rfc2047::Subject)
               : git_wrap(title, -static_cast<int>(header_start.size()), 1, 78);
}

namespace {

// git folds a long Subject header at 78 columns (pretty.c, pp_email_subject); libgit2 does not.
void fold_subject(std::string* mail) {
    size_t start = mail->find("\nSubject: [");
    if (start == std::string::npos)
        return;
    ++start;
    size_t end = mail->find('\n', start);
    size_t text = mail->find("] ", start);
    if (text == std::string::npos || text > end)
        return;
    text += 2;
    std::string folded =
        encoded_subject(mail->substr(start, text - start), mail->substr(text, end - text), true);
    mail->replace(text, end - text, folded);
}

bool is_title_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_';
}

// git's format_sanitized_subject(): runs of other characters become one '-', runs of '.'
// collapse, and trailing '.' and '-' go.
void append_sanitized(std::string* out, const std::string& text) {
    size_t start = out->size();
    int space = 2;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i] == '\n' ? ' ' : text[i];
        if (is_title_char(c)) {
            if (space == 1)
                out->push_back('-');
            space = 0;
            out->push_back(c);
            if (c == '.')
                while (i + 1 < text.size() && text[i + 1] == '.')
                    ++i;
        } else {
            space |= 1;
        }
    }
    while (out->size() > start && (out->back() == '.' || out->back() == '-'))
        out->pop_back();
}

} // namespace

std::string subject_prefix(size_t number, size_t total, int reroll) {
    std::string s = "[PATCH";
    if (reroll > 1)
        s += " v" + std::to_string(reroll);
    if (total > 1 || number == 0)
        s += " " + std::to_string(number) + "/" + std::to_string(total);
    return s + "]";
}

std::string address_header(const std::string& name, const std::vector<std::string>& addresses) {
    if (addresses.empty())
        return "";
    std::string out = name + ": ";
    for (size_t i = 0; i < addresses.size(); ++i)
        out += (i ? ",\n    " : "") + addresses[i];
    return out + "\n";
}

std::string rfc2822_date(long long seconds, int offset_minutes) {
    time_t local = static_cast<time_t>(seconds + offset_minutes * 60LL);
    struct tm tm {};
    gmtime_r(&local, &tm);
    char date[64];
    std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S", &tm);
    int off = offset_minutes < 0 ? -offset_minutes : offset_minutes;
    char zone[16];
    std::snprintf(zone, sizeof zone, "%c%02d%02d", offset_minutes < 0 ? '-' : '+', off / 60,
                  off % 60);
    return std::string(date) + " " + zone;
}

std::string message_id_for(const std::string& what, long long time, const std::string& email) {
    return what + "." + std::to_string(time) + ".git." + email;
}

std::string format_patch_mail(git_repository* repo, git_commit* commit, const MailOptions& opts) {
    std::string mail = email_body(repo, commit, opts);

    if (mail.size() < kLibgit2Trailer.size() ||
        mail.compare(mail.size() - kLibgit2Trailer.size(), kLibgit2Trailer.size(),
                     kLibgit2Trailer) != 0)
        throw GitError("libgit2 wrote a mail without its usual signature");
    mail.resize(mail.size() - kLibgit2Trailer.size());
    fold_subject(&mail);
    if (!opts.base_commit.empty())
        mail += "\nbase-commit: " + opts.base_commit + "\n";
    mail += "-- \n" + opts.signature + "\n\n";

    // libgit2 writes the author's name raw; git encodes or quotes it.
    const size_t from = mail.find("\nFrom: ") + 1;
    const git_signature* author = git_commit_author(commit);
    mail.replace(from, line_end(mail, from) - from, from_header(author->name, author->email, true));

    // git marks a message (subject and body, not the diff) with non-ASCII text as 8-bit
    // UTF-8, before the To/Cc headers.
    std::string headers = mime_headers_for(git_commit_message(commit)) +
                          address_header("To", opts.to) + address_header("Cc", opts.cc);
    mail.insert(after_subject(mail), headers);

    if (!opts.message_id.empty()) {
        std::string thread = "Message-Id: <" + opts.message_id + ">\n";
        if (!opts.in_reply_to.empty())
            thread +=
                "In-Reply-To: <" + opts.in_reply_to + ">\nReferences: <" + opts.in_reply_to + ">\n";
        mail.insert(line_end(mail, 0), thread);
    }
    return mail;
}

std::string patch_file_name(size_t number, const std::string& subject, int reroll) {
    constexpr size_t kNameMax = 64; // git's format.filenameMaxLength default
    const std::string suffix = ".patch";
    std::string name;
    if (reroll > 1) {
        append_sanitized(&name, "v" + std::to_string(reroll));
        name += "-";
    }
    char num[16];
    std::snprintf(num, sizeof num, "%04zu-", number);
    name += num;
    append_sanitized(&name, subject);
    size_t max_len = kNameMax - (suffix.size() + 1);
    if (name.size() > max_len)
        name.resize(max_len);
    return name + suffix;
}

} // namespace ksweep::series
