#include "check/base_state.h"

#include "check/file_changes.h"
#include "check/tree_state.h"
#include "core/tree_path.h"
#include "git/git_handle.h"

#include <algorithm>
#include <optional>

namespace ksweep::check {

namespace {

// The tree's git repository, for blob ids and pre-images; none outside git.
class Blobs {
  public:
    explicit Blobs(const std::string& tree) {
        git_repository* raw = nullptr;
        if (git_repository_open_ext(&raw, tree.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) ==
            0)
            repo_.reset(raw);
    }

    // The text of the blob whose id starts with `prefix`, when the repository has it.
    std::optional<std::string> text(const std::string& prefix) const {
        git_oid oid;
        if (!repo_ || prefix.empty() || git_oid_fromstrn(&oid, prefix.c_str(), prefix.size()) < 0)
            return std::nullopt;
        git_blob* raw = nullptr;
        if (git_blob_lookup_prefix(&raw, repo_.get(), &oid, prefix.size()) < 0)
            return std::nullopt;
        git::Blob blob(raw);
        return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                           static_cast<size_t>(git_blob_rawsize(blob.get())));
    }

  private:
    git::LibGit2 library_;
    git::Repository repo_;
};

// git hash-object of a text: the id an `index` line abbreviates.
std::string blob_id(const std::string& text) {
    git_oid oid;
    if (git_odb_hash(&oid, text.data(), text.size(), GIT_OBJECT_BLOB) < 0)
        return "";
    return git::oid_hex(oid);
}

bool is_zero_id(const std::string& id) {
    return id.find_first_not_of('0') == std::string::npos;
}

// A file of the tree whose blob is a patch's post-image and not its pre-image: the tree holds
// that patch. "" when no `index` line says so.
std::string post_image_evidence(const std::vector<Patch>& patches, const PreimageReader& read) {
    for (const Patch& patch : patches)
        for (const FileDiff& file : patch.files) {
            if (file.binary || file.is_deleted() || file.new_blob.empty() ||
                file.new_blob == file.old_blob || is_zero_id(file.new_blob))
                continue;
            auto text = read(file.new_path);
            if (!text)
                continue;
            const std::string id = blob_id(*text);
            if (id.starts_with(file.new_blob) && !id.starts_with(file.old_blob))
                return file.new_path;
        }
    return "";
}

void apply_forward(const std::vector<Patch>& patches, const std::string& tree) {
    Overlay overlay;
    for (const Patch& patch : patches) {
        TreeState state(tree, overlay, tree_reader(tree));
        record_changes(apply_patch(patch, state, tree), overlay);
    }
}

// The base of the patches in a tree that holds them: each undone, the last first.
Overlay undo(const std::vector<Patch>& patches, const std::string& tree, const Blobs& blobs,
             size_t& from_git, size_t& files) {
    Overlay base;
    for (auto patch = patches.rbegin(); patch != patches.rend(); ++patch) {
        Patch back;
        back.subject = patch->subject;
        for (auto file = patch->files.rbegin(); file != patch->files.rend(); ++file)
            back.files.push_back(reversed(*file));
        TreeState state(tree, base, tree_reader(tree));
        std::vector<FileChange> changes = apply_patch(back, state, tree);
        record_changes(changes, base);
        // The exact pre-image where git has it: the blob the forward diff's index line names.
        for (size_t i = 0; i < back.files.size(); ++i) {
            const FileDiff& forward = patch->files[patch->files.size() - 1 - i];
            const std::string& path = back.files[i].new_path;
            if (path.empty() || back.files[i].binary)
                continue;
            ++files;
            if (auto text = blobs.text(is_zero_id(forward.old_blob) ? "" : forward.old_blob)) {
                base[path] = std::move(*text);
                ++from_git;
            }
        }
    }
    return base;
}

// find_base_state() once the patches have a diff; TreePathError for a path through a link.
BaseState base_state_of(const std::vector<Patch>& patches, const std::string& tree) {
    BaseState state;
    const std::string evidence = post_image_evidence(patches, tree_reader(tree));
    std::string forward_error;
    if (evidence.empty()) {
        try {
            apply_forward(patches, tree);
            state.said = "tree state: the patches apply to the tree, their base";
            return state;
        } catch (const CheckError& e) {
            forward_error = e.what();
        }
    }
    const Blobs blobs(tree);
    size_t from_git = 0, files = 0;
    try {
        state.base = undo(patches, tree, blobs, from_git, files);
    } catch (const CheckError& e) {
        if (forward_error.empty()) // the index line said "holds", the hunks disagree
            throw CheckError(evidence + ": the tree's blob is the patch's post-image, but the " +
                             "patches do not come out again: " + e.what());
        throw CheckError(forward_error + "; nor does the tree hold the patches already (" +
                         e.what() + ")");
    }
    state.holds = true;
    const std::string why = evidence.empty()
                                ? "they apply in reverse"
                                : evidence + " is at the post-image its index line names";
    const std::string source =
        files == 0          ? "without the files they add"
        : from_git == files ? "from git (the blobs the index lines name)"
        : from_git == 0     ? "from the hunks applied in reverse (git has not the blobs the index "
                              "lines name)"
                            : "from git for " + std::to_string(from_git) + " of " +
                              std::to_string(files) + " files, the rest from the hunks reversed";
    state.said = "tree state: the tree already holds the patches (" + why +
                 "): checked against their pre-image " + source;
    return state;
}

} // namespace

FileDiff reversed(const FileDiff& diff) {
    FileDiff back = diff;
    back.old_path = diff.new_path;
    back.new_path = diff.copy ? "" : diff.old_path;
    back.copy = false;
    back.old_blob = diff.new_blob;
    back.new_blob = diff.old_blob;
    for (Hunk& hunk : back.hunks) {
        std::swap(hunk.old_start, hunk.new_start);
        std::swap(hunk.old_count, hunk.new_count);
        for (DiffLine& line : hunk.lines)
            line.kind = line.kind == '+' ? '-' : line.kind == '-' ? '+' : line.kind;
    }
    if (diff.copy) // undoing a copy deletes the copy: every line of it goes
        back.hunks.clear();
    return back;
}

BaseState find_base_state(const std::vector<Patch>& patches, const std::string& tree) {
    const bool any_diff = std::any_of(patches.begin(), patches.end(),
                                      [](const Patch& p) { return !p.files.empty(); });
    if (!any_diff)
        return {};
    try {
        return base_state_of(patches, tree);
    } catch (const TreePathError&) {
        // A path the check refuses anyway, naming the input it came from: the base is moot.
        return {};
    }
}

} // namespace ksweep::check
