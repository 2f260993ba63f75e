// MAINTAINERS, read the way scripts/get_maintainer.pl reads it, so that To/Cc equal
// `get_maintainer.pl --nogit --nogit-fallback --norolestats -f FILE...`:
// F: and X: are path patterns (* and ? globs, a directory matches everything below it, a file
// pattern only files at its own depth), N: a regex on the path, K: a regex on the file's text;
// sections are taken deepest pattern first; M: and R: become To, L: Cc (subscribers-only lists
// are left out, moderated ones kept); names and addresses go through .mailmap and are
// deduplicated by name and by address; Linus Torvalds (THE REST's maintainer) is dropped as
// get_maintainer.pl drops its "chief penguins".
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ksweep::series {

struct Recipients {
    std::vector<std::string> to; // maintainers and reviewers, "Name <address>"
    std::vector<std::string> cc; // mailing lists
};

struct MaintainerSection {
    std::string name;                       // "TPM DEVICE DRIVER"
    std::vector<std::string> maintainers;   // M: lines as written
    std::vector<std::string> reviewers;     // R:
    std::vector<std::string> lists;         // L: (address and note)
    std::vector<std::string> file_patterns; // F: as written, "drivers/char/tpm/"
    std::vector<std::string> trees;         // T: as written, "git git://.../jic23/iio.git"
    std::string status;                     // S:
};

// A file of the tree and the text K: patterns are matched against.
struct FileForLookup {
    std::string path; // tree-relative
    std::string text;
};

class Maintainers {
  public:
    // Reads <tree>/MAINTAINERS and <tree>/.mailmap; throws std::runtime_error when MAINTAINERS
    // is missing or a pattern does not compile.
    static Maintainers load(const std::string& tree);
    Maintainers(Maintainers&&) noexcept;
    Maintainers& operator=(Maintainers&&) noexcept;
    ~Maintainers();

    // get_maintainer.pl's answer for these files together.
    Recipients recipients(const std::vector<FileForLookup>& files) const;

    // The sections matching a path by F:/N: (not K:), deepest pattern first.
    std::vector<const MaintainerSection*> sections_for(const std::string& path) const;

    size_t section_count() const;

  private:
    struct Impl;
    explicit Maintainers(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// get_maintainer.pl's parse_email/format_email: ("Name", "address") and "Name <address>",
// quoting names with characters other than word characters, space and '-'.
std::pair<std::string, std::string> parse_email(const std::string& text);
std::string format_email(std::string name, std::string address);

} // namespace ksweep::series
