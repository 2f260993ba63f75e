// Any tree, as a new user meets it: Debian's 6.12 source with only the 6.1 headers installed.
// With no options ksweep prepares the tree's own build dir (the tree's kbuild, O= into the
// cache) and the enum sites the semantic engine exists for resolve; check flags them; another
// version's headers are refused. The first test pays the one-time prepare (about a minute on
// 2 cores); the rest reuse it.
#include "../series/test_repo.h"
#include "check_tree_6_1.h"
#include "json_fields.h"
#include "require_env.h"
#include "shareable.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <regex>

namespace fs = std::filesystem;
using ksweep::test::quote;
using ksweep::test::run;

namespace {

constexpr const char* kTisCore = "drivers/char/tpm/tpm_tis_core.c";

class Tree612 : public ::testing::Test {
  protected:
    void SetUp() override {
        tree_ = ksweep::test::tree_6_12();
        if (tree_.empty() || !fs::exists(tree_ + "/" + kTisCore))
            KSWEEP_SKIP_OR_FAIL("no 6.12 tree: run scripts/setup.sh");
        version_ = ksweep::test::tree_kernel_version(tree_);
        ASSERT_EQ(version_.rfind("6.12.", 0), 0u) << "make kernelversion in " << tree_;
    }

    ksweep::test::CommandResult ksweep(const std::string& args) {
        return run(std::string(KSWEEP_BINARY) + " " + args, false);
    }

    std::string tree_;
    std::string version_; // what the tree's own kbuild says: Debian moves the package on
};

TEST_F(Tree612, ScanWithNoOptionsResolvesEveryTpmTimeoutSiteThroughThePreparedBuild) {
    auto scan = ksweep("scan --format json " + quote(tree_) + " drivers/char/tpm");
    ASSERT_EQ(scan.status, 0) << scan.output;
    const ksweep::Json root = ksweep::test::parse_json(scan.output);
    ASSERT_TRUE(root.is_object()) << scan.output;
    using ksweep::test::json_string;
    EXPECT_EQ(json_string(root, "kernel_version"), version_);
    std::string build_dir = json_string(root, "build_dir");
    EXPECT_NE(build_dir.find("/builds/"), std::string::npos)
        << "a 6.12 tree with 6.1 headers must get its own build dir: " << build_dir;
    std::string build = json_string(root, "build");
    EXPECT_NE(build.find("made by ksweep"), std::string::npos) << build;
    EXPECT_NE(build.find("Linux " + version_), std::string::npos) << build;
    EXPECT_NE(build.find("HZ="), std::string::npos) << build;

    int sites = 0;
    for (const auto& o : root.at("findings")) {
        if (json_string(o, "constant") != "TPM_TIMEOUT" || json_string(o, "callee") != "msleep")
            continue;
        std::string file = json_string(o, "file");
        if (file.find("st33zp24.c") == std::string::npos &&
            file.find("tpm_nsc.c") == std::string::npos)
            continue;
        ++sites;
        EXPECT_EQ(ksweep::test::json_integer(o, "value_ms"), 5) << file;
        EXPECT_EQ(json_string(o, "resolution"), "enum") << file;
        EXPECT_EQ(json_string(o, "engine"), "semantic") << file;
        EXPECT_EQ(json_string(o, "defined_at"), ksweep::test::tpm_timeout_place(tree_)) << file;
        EXPECT_TRUE(ksweep::test::json_bool(o, "actionable")) << file;
    }
    EXPECT_EQ(sites, 5) << "st33zp24.c x3 and tpm_nsc.c x2";
    // Every file with a call is parsed for its loops: only the powerpc driver, whose asm/vio.h
    // an x86 build dir lacks, falls back (its calls are literals, settled lexically).
    EXPECT_EQ(ksweep::test::json_integer(root.at("summary"), "files_fallback"), 1)
        << scan.output.substr(0, 4000);
    ASSERT_EQ(root.at("errors").size(), 1u) << scan.output.substr(0, 4000);
    EXPECT_EQ(root.at("errors")[0].get<std::string>().rfind("drivers/char/tpm/tpm_ibmvtpm.c: ", 0),
              0u)
        << root.at("errors")[0];
}

TEST_F(Tree612, CheckFlagsMsleepOfTheEnumAddedToTisCore) {
    ksweep::test::TempDir dir;
    std::string original = ksweep::test::read_file(tree_ + "/" + kTisCore);
    std::string from = "tpm_msleep(TPM_TIMEOUT);";
    size_t at = original.find(from);
    ASSERT_NE(at, std::string::npos);
    std::string patched = original;
    patched.replace(at, from.size(), "msleep(TPM_TIMEOUT);");
    fs::create_directories(dir.path() + "/a/drivers/char/tpm");
    fs::create_directories(dir.path() + "/b/drivers/char/tpm");
    ksweep::test::write_file(dir.path() + "/a/" + kTisCore, original);
    ksweep::test::write_file(dir.path() + "/b/" + kTisCore, patched);
    auto diff = run("cd " + quote(dir.path()) + " && git diff --no-index --no-prefix a/" +
                        kTisCore + " b/" + kTisCore,
                    false);
    std::string patch = dir.path() + "/p.patch";
    ksweep::test::write_file(patch, "From: A Developer <dev@example.com>\n"
                                    "Subject: [PATCH] tpm: tis: use msleep()\n\n"
                                    "Signed-off-by: A Developer <dev@example.com>\n---\n" +
                                        diff.output);
    auto check = ksweep("check --tree " + quote(tree_) + " " + quote(patch));
    EXPECT_EQ(check.status, 1) << check.output;
    EXPECT_NE(check.output.find("WARNING: msleep(TPM_TIMEOUT)"), std::string::npos) << check.output;
}

TEST_F(Tree612, AnotherVersionsHeadersAreRefusedWithWhatToDo) {
    // Debian's 6.1 headers, as setup recorded them.
    std::string headers = ksweep::test::tree_from_env("KSWEEP_HEADERS");
    if (headers.empty() || !fs::exists(headers + "/Makefile"))
        KSWEEP_SKIP_OR_FAIL("no linux-headers-6.1 installed: run scripts/setup.sh");
    auto scan = run(std::string(KSWEEP_BINARY) + " scan --build-dir " + quote(headers) + " " +
                        quote(tree_) + " drivers/char/tpm",
                    true);
    EXPECT_EQ(scan.status, 2) << scan.output;
    EXPECT_NE(scan.output.find("is for Linux 6.1."), std::string::npos) << scan.output;
    EXPECT_NE(scan.output.find("the tree is Linux " + version_), std::string::npos) << scan.output;
}

} // namespace

namespace {

// L3 in the tree's own build: 6.12's drivers never meet another version's headers (they do
// not compile against 6.1's: the i2c probe signature, struct cpuinfo_x86's x86_vfm).
TEST_F(Tree612, SeriesPassesL1ToL3InTheTreesOwnBuildDir) {
    ksweep::test::TempDir dir;
    std::string series = dir.path() + "/tpm";
    auto made = ksweep("series --signoff 'Test Maintainer <test@example.org>' -o " + quote(series) +
                       " " + quote(tree_) + " drivers/char/tpm 2>&1");
    ASSERT_EQ(made.status, 0) << made.output;
    std::string out = dir.path() + "/report";
    auto v = run(std::string(KSWEEP_BINARY) + " validate --series " +
                     quote(ksweep::test::only_series_dir(series)) + " --levels 1,2,3 -o " +
                     quote(out) + " " + quote(tree_),
                 true);
    EXPECT_EQ(v.status, 0) << v.output;
    const ksweep::Json root =
        ksweep::test::parse_json(ksweep::test::read_file(out + "/report.json"));
    ASSERT_TRUE(root.is_object());
    using ksweep::test::json_string;
    EXPECT_NE(json_string(root, "headers_dir").find("/builds/"), std::string::npos);
    EXPECT_NE(json_string(root, "build_dir_note").find("Linux " + version_), std::string::npos);
    // HZ from its real source, in stderr, the mails and the report alike: the tree has no
    // .config; the build dir ksweep made with allmodconfig has one (issue 31).
    const std::string label =
        "HZ=250 from allmodconfig (the build dir ksweep made; the tree has no .config)";
    EXPECT_NE(made.output.find(label), std::string::npos) << made.output;
    const std::string mail =
        ksweep::test::read_file(ksweep::test::only_series_dir(series) +
                                "/0001-tpm-st33zp24-Use-tpm_msleep-for-short-sleeps.patch");
    EXPECT_NE(
        std::regex_replace(mail, std::regex("\\s+"), " ").find("(sleep model, " + label + ")"),
        std::string::npos)
        << mail;
    EXPECT_NE(json_string(root, "build_dir_note").find(label), std::string::npos)
        << json_string(root, "build_dir_note");
    // Shared outputs name the cache as $KSWEEP_CACHE, never its path on this machine.
    ksweep::test::expect_shareable_files(series, tree_);
    ksweep::test::expect_shareable_files(out, tree_);
    const ksweep::Json& patches = root.at("patches");
    ASSERT_GE(patches.size(), 3u) << "st33zp24, tpm_nsc, tpm_tis_i2c_cr50";
    for (const auto& p : patches) {
        const ksweep::Json& l3 = p.at("levels").at("L3");
        EXPECT_EQ(json_string(l3, "status"), "passed") << json_string(l3, "message");
        EXPECT_NE(json_string(l3, "message").find("unresolved symbols not checked"),
                  std::string::npos)
            << "a prepared build has no Module.symvers: the level must say what it did not check";
    }
}

} // namespace

namespace {

// A sparse checkout of the tree (drivers/char/tpm only, as the replay tests make): no kbuild
// and no headers of its own. The build dir ksweep made from the full tree of the same version
// serves it, so `series` resolves the TPM_TIMEOUT sites there too (they used to be skipped as
// "argument is not a constant") and says where the headers came from.
TEST_F(Tree612, SeriesOnASparseCheckoutParsesWithTheFullTreesBuildDir) {
    ksweep::test::TempDir dir;
    // Any series of the tree names the scratch repository that holds it as a commit, and
    // prepares (or finds) the full tree's build dir.
    auto made = run(std::string(KSWEEP_BINARY) + " series --signoff 'T <t@example.org>' -o " +
                        quote(dir.path() + "/full") + " " + quote(tree_) + " drivers/char/tpm",
                    true);
    ASSERT_EQ(made.status, 0) << made.output;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(made.output, m, std::regex("scratch repository\n(\\S+)")))
        << made.output;
    std::string scratch = m[1];
    std::string base = ksweep::test::trim_newline(
        run("git --git-dir=" + quote(scratch) +
                " for-each-ref --format='%(objectname)' refs/ksweep/base/",
            false)
            .output);
    ASSERT_EQ(base.size(), 40u) << base;
    std::string clone = dir.path() + "/linux";
    ksweep::test::scratch_checkout(scratch, tree_, base, {"drivers/char/tpm"}, clone);
    ksweep::test::run_git(clone, "checkout -q -b sparse");
    ASSERT_FALSE(fs::exists(clone + "/include"));

    auto series = run(std::string(KSWEEP_BINARY) + " series --signoff 'T <t@example.org>' -o " +
                          quote(dir.path() + "/sparse") + " " + quote(clone) + " drivers/char/tpm",
                      true);
    ASSERT_EQ(series.status, 0) << series.output;
    EXPECT_NE(series.output.find("made by ksweep from a full tree of the same version"),
              std::string::npos)
        << series.output;
    EXPECT_NE(series.output.find("headers from " + fs::canonical(tree_).string()),
              std::string::npos)
        << series.output;
    std::string out = ksweep::test::only_series_dir(dir.path() + "/sparse");
    ASSERT_FALSE(out.empty()) << series.output;
    EXPECT_TRUE(fs::exists(out + "/0001-tpm-st33zp24-Use-tpm_msleep-for-short-sleeps.patch"))
        << series.output;
    EXPECT_TRUE(fs::exists(out + "/0002-tpm-tpm_nsc-Use-tpm_msleep-for-short-sleeps.patch"))
        << series.output;
    EXPECT_EQ(series.output.find("argument is not a constant"), std::string::npos) << series.output;
    // The sparse checkout has no include/: its sleep API is read from the full tree.
    EXPECT_NE(series.output.find("ksweep series: target auto: usleep_range (fsleep() allows twice "
                                 "the sleep here (include/linux/delay.h:"),
              std::string::npos)
        << series.output;
}

} // namespace
