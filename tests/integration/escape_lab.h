// A place to watch `ksweep check` refuse a patch that reaches outside its tree (issue 25):
//
//   LAB/t/tree         the tree (a copy, or a link to a cached tree never written)
//   LAB/t/             $TMPDIR of the check: its shadow tree is made here, so "../../sentinel"
//                      from the tree and from the shadow both name LAB/sentinel
//   LAB/sentinel/      victim.c, a sentinel file beside the tree
//   LAB/patches/       the patches
//
// refused() runs the check and asserts what a refusal must be: exit 2, no verdict on stdout,
// one error line naming the patch file, the line and the path, the sentinel unchanged and
// nothing new or missing anywhere in the lab.
#pragma once

#include "test_repo.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>

namespace ksweep::test {

class EscapeLab {
  public:
    // `link`: the lab's tree is a symbolic link to `tree` instead of a copy of it.
    EscapeLab(const std::string& tree, bool link) {
        namespace fs = std::filesystem;
        fs::create_directories(root() / "t");
        if (link)
            fs::create_directory_symlink(tree, this->tree());
        else
            fs::copy(tree, this->tree(), fs::copy_options::recursive);
        write_file(sentinel() / "victim.c", "int victim; /* must survive */\n");
    }

    std::filesystem::path root() const { return dir_.path(); }
    std::filesystem::path tree() const { return root() / "t/tree"; }
    std::filesystem::path sentinel() const { return root() / "sentinel"; }

    // Every entry of the lab (links not followed: a linked tree is one entry) and its bytes.
    std::map<std::string, std::string> snapshot() const {
        std::map<std::string, std::string> out;
        for (const auto& e : std::filesystem::recursive_directory_iterator(root()))
            out[e.path().string()] = e.is_regular_file() && !e.is_symlink()
                                         ? read_file(e.path().string())
                                         : std::string(e.is_symlink() ? "link" : "dir");
        return out;
    }

    // Checks `patch` (written as LAB/patches/NAME) with `options`; asserts the refusal and
    // returns the error line.
    std::string refused(const std::string& name, const std::string& patch,
                        const std::string& path_in_error, const std::string& options = "") {
        const std::string file = (root() / "patches" / name).string();
        write_file(file, patch);
        const auto before = snapshot();
        const auto err = root() / "stderr";
        auto r = run("TMPDIR=" + quote((root() / "t").string()) + " " + KSWEEP_BINARY +
                         " check --tree " + quote(tree().string()) + " " + options + " " +
                         quote(file) + " 2>" + quote(err.string()),
                     false);
        const std::string errors = read_file(err.string());
        std::filesystem::remove(err);
        EXPECT_EQ(r.status, 2) << r.output << errors;
        EXPECT_EQ(r.output, "") << "no verdict on stdout";
        std::string line;
        for (size_t start = 0; start < errors.size();) {
            size_t end = std::min(errors.find('\n', start), errors.size());
            std::string l = errors.substr(start, end - start);
            if (l.find(path_in_error) != std::string::npos) {
                EXPECT_EQ(line, "") << "one line for the refusal: " << errors;
                line = l;
            }
            start = end + 1;
        }
        EXPECT_NE(line.find(file + ": "), std::string::npos) << errors;
        EXPECT_NE(line.find("line "), std::string::npos) << errors;
        EXPECT_EQ(read_file((sentinel() / "victim.c").string()),
                  "int victim; /* must survive */\n");
        EXPECT_EQ(snapshot(), before) << "something was written or removed";
        return line;
    }

  private:
    TempDir dir_;
};

} // namespace ksweep::test
