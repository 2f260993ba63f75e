#include "series/mail.h"

#include "series/text_wrap.h"

#include <cctype>
#include <ctime>

namespace ksweep::series {

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
        git_wrap(mail->substr(text, end - text), -static_cast<int>(text - start), 1, 78);
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

    mail.insert(after_subject(mail), address_header("To", opts.to) + address_header("Cc", opts.cc));

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
