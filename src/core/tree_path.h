// THE one place that turns a path from outside into a path inside a tree.
//
// Outside input is hostile until checked: a patch or mail (its "diff --git", ---/+++, rename
// and copy names and file modes), a validate report's "files", a sweep index's series names,
// a LAVA results directory, and a path a user types for a command that works inside TREE.
// Every reader of such input asks here, so one set of rules decides what may be named:
//
//   checked_tree_path()   a tree-relative path as a document spells it: refused when empty,
//                         absolute, with an empty, "." or ".." component, a ".git" component
//                         (any case, with git's NTFS/HFS spellings), a NUL or control byte, or
//                         longer than the file system allows (kMaxPathBytes, kMaxNameBytes);
//   checked_name()        one directory entry (a series folder under an output directory);
//   path_in_tree()        checked_tree_path() plus the disk: no existing component below the
//                         root may be a symbolic link (the tree's own link could lead anywhere);
//   user_path_in_tree()   a path given relative to the working directory (or absolute) that
//                         must name something inside the tree: its tree-relative form;
//   check_file_mode()     a mode a patch gives a file: regular files only (120000 symbolic
//                         links and 160000 gitlinks are refused, and the error says why);
//   lies_under()          belt and braces for writers: the directory entry `target` names
//                         lies under `root` once every symbolic link is resolved.
//
// Refusals throw TreePathError; what() names the path (C-quoted as git quotes it when it holds
// unusual bytes) and why, so a reader adds only where it read it: "mail: line 12: ...".
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ksweep {

// Linux's PATH_MAX (4096, with its NUL) and NAME_MAX: no longer path can be opened, so none is
// accepted. They also bound the depth of any path (at most 2048 components).
inline constexpr size_t kMaxPathBytes = 4095;
inline constexpr size_t kMaxNameBytes = 255;

struct TreePathError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `path` as git's quote_c_style() prints it: unchanged when it holds only printable bytes,
// else in double quotes with \t, \n, \", \\ and \ooo escapes. Safe to print on a terminal.
std::string printable_path(std::string_view path);

// Returns `path` when it is a tree-relative path that stays inside any tree; throws
// TreePathError saying why not.
std::string checked_tree_path(std::string_view path);

// Returns `name` when it is a single directory entry checked_tree_path() accepts.
std::string checked_name(std::string_view name);

// `root / path` for reading or writing a file of the tree at `root`: `path` is checked as by
// checked_tree_path(), and no component of it that exists below `root` may be a symbolic link
// (`root` itself may be one: it is the user's). Throws TreePathError.
std::filesystem::path path_in_tree(const std::filesystem::path& root, std::string_view path);

// The tree-relative form of `path`, a path a user gave relative to `cwd` (or absolute) that
// must lie inside the tree at `root`, after resolving symbolic links: "" for the root itself.
// Throws TreePathError when it lies outside (a command-line path is the user's: links in it
// are followed, but the result must be in the tree).
std::string user_path_in_tree(const std::filesystem::path& root, const std::filesystem::path& path,
                              const std::filesystem::path& cwd = std::filesystem::current_path());

// Throws TreePathError unless `mode` (the octal digits of a patch's "new file mode", "old
// mode", "new mode", "deleted file mode" or "index" line for `path`) is a regular file's:
// 100644, 100755 or git's legacy 100664.
void check_file_mode(std::string_view path, std::string_view mode);

// True when the directory entry `target` names (its parent directory with every symbolic link
// resolved, plus its last component, which must be a plain name) lies below `root`. The last
// component is not resolved: removing or replacing a link acts on the link itself.
bool lies_under(const std::filesystem::path& root, const std::filesystem::path& target);

} // namespace ksweep
