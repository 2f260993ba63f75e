#include "test_repo.h"

#include "core/file_io.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <vector>

namespace ksweep::test {

TempDir::TempDir() : path_(make_temp_dir("ksweep-series").string()) {}

TempDir::~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

CommandResult run(const std::string& command, bool merge_stderr) {
    CommandResult r;
    std::string cmd = merge_stderr ? "(" + command + ") 2>&1" : command;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p)
        return r;
    std::array<char, 65536> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
        r.output.append(buf.data(), n);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

std::string quote(const std::string& s) {
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void init_repo(const std::string& dir) {
    std::filesystem::create_directories(dir);
    run_git(dir, "init -q -b main");
    run_git(dir, "config user.name 'Test Maintainer'");
    run_git(dir, "config user.email test@example.org");
    run_git(dir, "config core.abbrev 12");
}

std::string trim_newline(std::string s) {
    while (!s.empty() && s.back() == '\n')
        s.pop_back();
    return s;
}

std::string only_series_dir(const std::string& out) {
    std::vector<std::string> dirs;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(out, ec))
        if (e.is_directory())
            dirs.push_back(e.path().string());
    EXPECT_EQ(dirs.size(), 1u) << out;
    return dirs.size() == 1 ? dirs[0] : "";
}

std::string run_git(const std::string& dir, const std::string& args) {
    auto r = run("git -C " + quote(dir) + " " + args);
    EXPECT_EQ(r.status, 0) << "git " << args << "\n" << r.output;
    return r.output;
}

void scratch_checkout(const std::string& scratch, const std::string& tree,
                      const std::string& commit, const std::vector<std::string>& dirs,
                      const std::string& into) {
    std::string command = std::string(KSWEEP_SOURCE_DIR) + "/scripts/scratch-checkout.sh " +
                          quote(scratch) + " " + quote(tree) + " " + commit + " " + quote(into);
    for (const std::string& d : dirs)
        command += " " + quote(d);
    auto r = run(command);
    EXPECT_EQ(r.status, 0) << command << "\n" << r.output;
    run_git(into, "config user.name 'Test Maintainer'");
    run_git(into, "config user.email test@example.org");
}

} // namespace ksweep::test
