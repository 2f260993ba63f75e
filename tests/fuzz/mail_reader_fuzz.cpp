// Fuzz target: what `ksweep check` reads from strangers. The input is a mailbox, a mail or a
// diff: it is split as git mailsplit splits it, each mail decoded as git mailinfo decodes it
// (GMime: quoted-printable, base64, multipart, charsets), its patch parsed with every path and
// mode checked (core/tree_path.h), put in [PATCH n/m] order, and each file's hunks applied to
// a small text (the bounded offset search). Refusing the input (DiffError, ApplyError) is a
// result; any other exception, a crash, a sanitizer report or a slow input is a finding.
#include "check/hunk_apply.h"
#include "check/mail_text.h"
#include "check/mbox.h"
#include "check/unified_diff.h"
#include "core/tree_path.h"

#include <cstdint>
#include <string>
#include <string_view>

using namespace ksweep;
using namespace ksweep::check;

namespace {

// A pre-image the hunks may or may not match: repeated lines make the offset search work.
const std::string kPreImage = [] {
    std::string text;
    for (int i = 0; i < 64; ++i)
        text += i % 8 == 0 ? "}\n" : i % 2 ? "\tmsleep(1);\n" : " a\n";
    return text;
}();

void apply_each(const std::vector<Patch>& patches) {
    for (const Patch& patch : patches) {
        for (const FileDiff& file : patch.files) {
            // The reader let these through: they must be what tree_path.h accepts.
            for (const std::string* path : {&file.old_path, &file.new_path})
                if (!path->empty() && checked_tree_path(*path) != *path)
                    __builtin_trap();
            try {
                PostImage post = apply_hunks(file, kPreImage);
                for (const auto& [line, diff_line] : post.added)
                    if (line == 0 || diff_line->kind != '+')
                        __builtin_trap();
            } catch (const ApplyError&) {
            }
        }
        series_tag(patch.subject);
        why_no_diff(patch, patches.size() > 1);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    for (const MboxMessage& m : split_mbox(input))
        if (starts_with_mail_header(m.text)) {
            try {
                MailText mail = read_mail(m.text);
                if (mail.patch_start != std::string::npos && mail.patch_start > mail.body.size())
                    __builtin_trap();
            } catch (const MailError&) {
            }
        }
    try {
        std::vector<Patch> patches = read_patches(input);
        put_in_series_order(patches);
        apply_each(patches);
    } catch (const DiffError&) {
    }
    return 0;
}
