#include "check/file_changes.h"

#include "core/tree_path.h"

namespace ksweep::check {

namespace {

// The reader refused every path that leaves any tree; this tree's own symbolic links could
// lead anywhere too, so no path of the patch may go through one.
void check_on_disk(const FileDiff& file, const std::string& tree, const std::string& where) {
    for (const std::string* path : {&file.old_path, &file.new_path}) {
        if (path->empty())
            continue;
        try {
            path_in_tree(tree, *path);
        } catch (const TreePathError& e) {
            throw TreePathError("line " + std::to_string(file.header_line) + ": " + e.what() +
                                where);
        }
    }
}

} // namespace

std::vector<FileChange> apply_patch(const Patch& patch, const TreeState& state,
                                    const std::string& tree_name) {
    const std::string where = patch.subject.empty() ? "" : " (\"" + patch.subject + "\")";
    std::vector<FileChange> changes;
    for (const auto& file : patch.files) {
        check_on_disk(file, tree_name, where);
        if (file.binary)
            continue;
        FileChange change;
        change.diff = &file;
        change.path = file.new_path;
        change.old_path = file.old_path;
        std::string pre;
        if (file.is_new()) {
            if (state.read(file.new_path))
                throw CheckError(file.new_path + ": patch" + where +
                                 " creates it, but it already exists in the tree");
        } else if (auto text = state.read(file.old_path)) {
            pre = std::move(*text);
            if (!file.copy)
                change.before = pre;
        } else {
            throw CheckError(file.old_path + ": patch" + where + " changes it, but it is not in " +
                             tree_name);
        }
        try {
            change.post = apply_hunks(file, pre);
        } catch (const ApplyError& e) {
            throw CheckError(std::string(e.what()) + where);
        }
        if (!file.is_deleted())
            change.after = change.post.text;
        changes.push_back(std::move(change));
    }
    return changes;
}

void record_changes(const std::vector<FileChange>& changes, Overlay& overlay) {
    for (const FileChange& c : changes) {
        if (!c.old_path.empty() && c.old_path != c.path && !c.diff->copy)
            overlay[c.old_path] = std::nullopt;
        if (!c.path.empty())
            overlay[c.path] = c.after;
    }
}

} // namespace ksweep::check
