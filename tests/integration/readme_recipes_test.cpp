// The README's recipes are tests: every command of its "On your own tree" and "In CI and with
// b4" blocks runs verbatim (read from README.md, `ksweep` on PATH), from a git checkout of
// Debian's 6.1 tree, and its exit status and output are what the README promises. The CI ones
// run at the tip of a branch (the tree already holds its patch), and again on its base, with
// the same verdict. A command the README adds without an expectation here fails the test, as
// does an expectation whose command the README no longer has.
#include "check_tree_6_1.h"
#include "json_fields.h"
#include "require_env.h"
#include "test_repo.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::read_file;
using ksweep::test::run;
using ksweep::test::run_git;
using ksweep::test::trim_newline;

namespace {

// The commands of the fenced blocks of the README section `heading` (up to the next "## "), as
// written: comment lines and blank lines left out, "\" continuations joined.
std::vector<std::string> recipe_commands(const std::string& heading) {
    std::istringstream readme(read_file(std::string(KSWEEP_SOURCE_DIR) + "/README.md"));
    std::vector<std::string> commands;
    bool in_section = false, in_block = false;
    std::string pending;
    for (std::string line; std::getline(readme, line);) {
        if (line.starts_with("## ")) {
            in_section = line == "## " + heading;
            continue;
        }
        if (!in_section)
            continue;
        if (line.starts_with("```")) {
            in_block = !in_block;
            continue;
        }
        if (!in_block || line.empty() || line.starts_with("#"))
            continue;
        if (line.ends_with("\\")) {
            pending += line.substr(0, line.size() - 1);
            continue;
        }
        commands.push_back(pending + line);
        pending.clear();
    }
    return commands;
}

// A command without its trailing "  # comment": what the expectations are keyed by.
std::string without_comment(const std::string& command) {
    const size_t hash = command.find("  #");
    std::string c = hash == std::string::npos ? command : command.substr(0, hash);
    while (!c.empty() && c.back() == ' ')
        c.pop_back();
    return c;
}

struct Outcome {
    int status = -1;
    std::string out, err;
};

struct Expectation {
    int status;
    std::vector<std::string> in_output; // regexes, each found in stdout or stderr
    std::function<void(const Outcome&)> also = nullptr;
};

class ReadmeRecipes : public ::testing::Test {
  protected:
    // One checkout for the suite: `master` at the tree's snapshot (origin/master), `work` one
    // commit on, which brings a small sleep in (the issue's example: tpm_tis_core.c's
    // tpm_msleep(TPM_TIMEOUT) made msleep()).
    static void SetUpTestSuite() {
        const std::string tree = ksweep::test::tree_6_1();
        if (tree.empty() || !fs::exists(tree + "/MAINTAINERS"))
            return;
        dir = new ksweep::test::TempDir;
        // Any series of the tree puts a snapshot of it into the scratch repository (cached).
        // A fresh machine has no git identity: the sign-off is given.
        auto seed =
            run(std::string(KSWEEP_BINARY) + " series --signoff 'CI Bot <ci@example.org>' -o " +
                    quote(dir->path() + "/seed") + " " + quote(tree) + " drivers/char/tpm/st33zp24",
                true);
        std::smatch m;
        if (seed.status != 0 ||
            !std::regex_search(seed.output, m, std::regex("scratch repository\n(\\S+)"))) {
            setup_error = "ksweep series on the 6.1 tree failed:\n" + seed.output;
            return;
        }
        const std::string scratch = m[1];
        const std::string base =
            trim_newline(run("git --git-dir=" + quote(scratch) +
                                 " for-each-ref --format='%(objectname)' refs/ksweep/base/",
                             false)
                             .output);
        checkout = dir->path() + "/linux";
        // A sparse checkout of what these recipes read: kbuild's top files, the headers, the
        // TPM drivers, the tree's sleep API and timers document; the build dir is Debian's
        // headers of the same version, as for the whole tree.
        ksweep::test::scratch_checkout(scratch, tree, base,
                                       {"drivers/char/tpm", "include", "arch/x86", "scripts",
                                        "kernel/time", "Documentation/timers"},
                                       checkout);
        run_git(checkout, "config user.name 'CI Bot'");
        run_git(checkout, "config user.email ci@example.org");
        run_git(checkout, "update-ref refs/remotes/origin/master " + base);
        run_git(checkout, "checkout -q -b master " + base);
        run_git(checkout, "checkout -q -b work");
        const std::string file = checkout + "/drivers/char/tpm/tpm_tis_core.c";
        std::string text = read_file(file);
        const size_t at = text.find("\t\ttpm_msleep(TPM_TIMEOUT);");
        if (at == std::string::npos) {
            setup_error = "tpm_tis_core.c has no tpm_msleep(TPM_TIMEOUT) line";
            return;
        }
        text.replace(at, 2 + std::string("tpm_msleep").size(), "\t\tmsleep");
        std::ofstream(file) << text;
        run_git(checkout, "commit -qam 'tpm: tis: poll the locality with msleep()' "
                          "-m 'Signed-off-by: CI Bot <ci@example.org>'");
        run_git(checkout, "checkout -q master");
    }

    static void TearDownTestSuite() {
        delete dir;
        dir = nullptr;
    }

    void SetUp() override {
        if (!dir)
            KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
        ASSERT_EQ(setup_error, "");
    }

    // Runs `command` verbatim with sh in the checkout, ksweep on PATH.
    static Outcome run_in_checkout(const std::string& command) {
        const std::string err = dir->path() + "/stderr";
        const std::string bin = fs::path(KSWEEP_BINARY).parent_path().string();
        auto r = run("cd " + quote(checkout) + " && PATH=" + quote(bin) + ":\"$PATH\" sh -c " +
                         quote(command) + " 2>" + quote(err),
                     false);
        return {r.status, r.output, read_file(err)};
    }

    // Runs every command of the README section and checks it against `expected`.
    static void run_section(const std::string& heading,
                            const std::map<std::string, Expectation>& expected) {
        const std::vector<std::string> commands = recipe_commands(heading);
        ASSERT_FALSE(commands.empty()) << "README.md has no commands under ## " << heading;
        std::set<std::string> seen;
        for (const std::string& command : commands) {
            const std::string key = without_comment(command);
            seen.insert(key);
            auto e = expected.find(key);
            if (e == expected.end()) {
                ADD_FAILURE() << "README command without an expectation in this test: " << key;
                continue;
            }
            const Outcome o = run_in_checkout(command);
            EXPECT_EQ(o.status, e->second.status) << command << "\n" << o.out << o.err;
            for (const std::string& pattern : e->second.in_output)
                EXPECT_TRUE(std::regex_search(o.out + o.err, std::regex(pattern)))
                    << command << ": no /" << pattern << "/ in\n"
                    << o.out << o.err;
            EXPECT_TRUE(no_machine_paths(o.out)) << command << ": stdout\n" << o.out;
            if (e->second.also)
                e->second.also(o);
        }
        for (const auto& [key, expectation] : expected)
            EXPECT_TRUE(seen.count(key)) << "README.md no longer has: " << key;
    }

    // What is shared (stdout, the files written) names no path of this machine's checkout.
    static bool no_machine_paths(const std::string& text) {
        return text.find(checkout) == std::string::npos &&
               text.find(fs::canonical(checkout).string()) == std::string::npos;
    }

    static ksweep::test::TempDir* dir;
    static std::string checkout, setup_error;
};

ksweep::test::TempDir* ReadmeRecipes::dir = nullptr;
std::string ReadmeRecipes::checkout, ReadmeRecipes::setup_error;

// On the branch's base: what a maintainer runs on their own tree. Then in CI at the tip of a
// branch that holds a patch bringing msleep(TPM_TIMEOUT) in.
TEST_F(ReadmeRecipes, OnYourOwnTreeThenInCiAndWithB4) {
    run_section(
        "On your own tree",
        {{"ksweep scan . drivers/char/tpm/st33zp24", {0, {"st33zp24\\.c", "TPM_TIMEOUT"}}},
         {"ksweep fix . drivers/char/tpm/st33zp24 > st33zp24.diff",
          {0,
           {"ksweep fix: tpm_msleep\\(\\) for [0-9]+ sites? in [0-9]+ files?: the subsystem's own "
            "millisecond sleep \\(drivers/char/tpm/tpm\\.h:[0-9]+\\)"},
           [](const Outcome&) {
               const std::string diff = read_file(checkout + "/st33zp24.diff");
               EXPECT_NE(diff.find("+\t\ttpm_msleep(TPM_TIMEOUT);"), std::string::npos) << diff;
               EXPECT_EQ(
                   run("cd " + quote(checkout) + " && git status --porcelain -uno", false).output,
                   "")
                   << "fix wrote into the checkout";
           }}},
         {"ksweep series -o ../tpm-series . drivers/char/tpm/st33zp24",
          {0,
           {"series linux-tpmdd \\(change-id", "next: read the mails",
            "ksweep validate --series \\.\\./tpm-series/linux-tpmdd"},
           [](const Outcome&) {
               for (const auto& e : fs::recursive_directory_iterator(dir->path() + "/tpm-series")) {
                   if (!e.is_regular_file())
                       continue;
                   const std::string text = read_file(e.path().string());
                   EXPECT_TRUE(no_machine_paths(text)) << e.path() << "\n" << text;
               }
           }}},
         {"git branch --list 'ksweep/*'", {0, {"ksweep/msleep_small-[0-9]{8}"}}},
         {"ksweep check . ../tpm-series/linux-tpmdd",
          {0, {"has no small sleeps", "tree state: the patches apply to the tree, their base"}}}});

    run_git(checkout, "checkout -q work");
    Outcome tip_pipe;
    run_section(
        "In CI and with b4",
        {{"git format-patch --stdout origin/master.. | ksweep check . -",
          {1,
           {"WARNING: msleep\\(TPM_TIMEOUT\\) < 20ms can sleep for up to [0-9]+ms at HZ=250: "
            "TPM_TIMEOUT is 5 \\(enumerator at drivers/char/tpm/tpm\\.h:[0-9]+\\); use "
            "tpm_msleep\\(TPM_TIMEOUT\\)",
            "#[0-9]+: FILE: drivers/char/tpm/tpm_tis_core\\.c:[0-9]+:",
            "tree state: the tree already holds the patches \\(drivers/char/tpm/tpm_tis_core\\.c "
            "is at the post-image its index line names\\): checked against their pre-image from "
            "git"},
           [&](const Outcome& o) { tip_pipe = o; }}},
         {"ksweep check . --format sarif --git origin/master..HEAD > msleep.sarif",
          {1,
           {},
           [](const Outcome&) {
               const std::string sarif = read_file(checkout + "/msleep.sarif");
               const ksweep::Json doc = ksweep::test::parse_json(sarif);
               ASSERT_TRUE(doc.is_object()) << sarif;
               const ksweep::Json& run0 = doc.at("runs").at(0);
               EXPECT_TRUE(run0.at("originalUriBaseIds").contains("%SRCROOT%")) << sarif;
               EXPECT_EQ(run0.at("results")
                             .at(0)
                             .at("locations")
                             .at(0)
                             .at("physicalLocation")
                             .at("artifactLocation")
                             .at("uriBaseId"),
                         "%SRCROOT%");
               EXPECT_TRUE(no_machine_paths(sarif)) << sarif;
           }}},
         {"ksweep check . ../tpm-series/linux-tpmdd",
          {0, {"has no small sleeps", "tree state: the patches apply to the tree"}}},
         {"git config b4.prep-perpatch-check-cmd \"ksweep check --terse --showfile\"",
          {0, {}, [](const Outcome&) {
               // What `b4 prep --check` then does (b4 0.14 on; Debian 12's b4 is 0.12, without
               // it): each patch of the branch on the command's stdin, in the checkout (the
               // tree at the tip holds it).
               const Outcome b4 =
                   run_in_checkout("git format-patch --stdout -1 HEAD | sh -c \"$(git config "
                                   "b4.prep-perpatch-check-cmd)\"");
               EXPECT_EQ(b4.status, 1) << b4.out << b4.err;
               EXPECT_NE(b4.out.find(ksweep::test::place_in_tree(ksweep::test::tree_6_1(),
                                                                 "drivers/char/tpm/tpm_tis_core.c",
                                                                 "\t\ttpm_msleep(TPM_TIMEOUT);") +
                                     ": WARNING: msleep(TPM_TIMEOUT) < 20ms"),
                         std::string::npos)
                   << b4.out << b4.err;
           }}}});

    // The same mail on the tree it applies to: the same verdict, word for word.
    const std::string mbox = dir->path() + "/tip.mbox";
    ASSERT_EQ(run("cd " + quote(checkout) + " && git format-patch --stdout origin/master.. > " +
                  quote(mbox))
                  .status,
              0);
    run_git(checkout, "checkout -q master");
    const Outcome base = run_in_checkout("ksweep check . - < " + quote(mbox));
    EXPECT_EQ(base.status, tip_pipe.status) << base.out << base.err;
    EXPECT_EQ(base.out, tip_pipe.out);
    EXPECT_NE(base.err.find("tree state: the patches apply to the tree, their base"),
              std::string::npos)
        << base.err;
}

} // namespace
