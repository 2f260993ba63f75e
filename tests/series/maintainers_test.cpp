// To/Cc from our MAINTAINERS reader must equal what the tree's own
// scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats says, file by file.
#include "require_env.h"
#include "series/maintainers.h"
#include "test_repo.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>
#include <sstream>

using namespace ksweep::series;
using namespace ksweep::test;

namespace {

// The Debian 6.1 tree scripts/setup.sh unpacks (KSWEEP_TREE_6_1 in ~/.cache/ksweep/env).
std::string tree_6_1() {
    if (const char* t = std::getenv("KSWEEP_TREE_6_1"))
        return t;
    std::string env = read_file(std::string(std::getenv("HOME")) + "/.cache/ksweep/env");
    std::istringstream in(env);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("KSWEEP_TREE_6_1=", 0) == 0)
            return line.substr(16);
    return "";
}

std::vector<std::string> get_maintainer(const std::string& tree, const std::string& file) {
    auto r = run("cd " + quote(tree) +
                     " && perl scripts/get_maintainer.pl --nogit "
                     "--nogit-fallback --norolestats -f " +
                     quote(file),
                 false);
    EXPECT_EQ(r.status, 0) << file;
    std::vector<std::string> lines;
    std::istringstream in(r.output);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

std::vector<std::string> ours(const Maintainers& m, const std::string& tree,
                              const std::string& file) {
    auto r = m.recipients({{file, read_file(tree + "/" + file)}});
    std::vector<std::string> all = r.to;
    all.insert(all.end(), r.cc.begin(), r.cc.end());
    return all;
}

class RealTreeMaintainers : public ::testing::Test {
  protected:
    void SetUp() override {
        tree = tree_6_1();
        if (tree.empty() || !std::filesystem::exists(tree + "/MAINTAINERS"))
            KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
    }
    std::string tree;
};

// Every file under drivers/char/tpm (the tpm series' files and their neighbours, some of which
// match N: patterns such as "atmel"), plus files that need K:, X: and mailmap handling.
TEST_F(RealTreeMaintainers, EqualsGetMaintainerForEveryTpmFile) {
    Maintainers m = Maintainers::load(tree);
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(tree + "/drivers/char/tpm"))
        if (e.is_regular_file())
            files.push_back(e.path().string().substr(tree.size() + 1));
    std::sort(files.begin(), files.end());
    ASSERT_GT(files.size(), 40u);
    for (const auto& f : files) {
        auto expected = get_maintainer(tree, f);
        auto got = ours(m, tree, f);
        // get_maintainer.pl orders sections of equal depth by Perl's random hash order, so
        // compare as sets, and the recipients' count to catch duplicates.
        EXPECT_EQ(std::set(got.begin(), got.end()), std::set(expected.begin(), expected.end()))
            << f;
        EXPECT_EQ(got.size(), expected.size()) << f;
    }
}

TEST_F(RealTreeMaintainers, EqualsGetMaintainerForKeywordAndExcludePatterns) {
    Maintainers m = Maintainers::load(tree);
    for (std::string f :
         {"drivers/net/ethernet/intel/e1000e/netdev.c", // K: xdp / ptp
          "drivers/ptp/ptp_clock.c", "kernel/bpf/verifier.c", "drivers/hwmon/lm75.c",
          "arch/arm/mach-at91/pm.c", "drivers/i2c/busses/i2c-virtio.c", "Makefile",
          "drivers/gpu/drm/i915/i915_drv.h", "net/core/dev.c"}) {
        auto expected = get_maintainer(tree, f);
        auto got = ours(m, tree, f);
        EXPECT_EQ(std::set(got.begin(), got.end()), std::set(expected.begin(), expected.end()))
            << f;
        EXPECT_EQ(got.size(), expected.size()) << f;
    }
}

TEST(MaintainersEmail, ParsesAndQuotesLikeGetMaintainer) {
    EXPECT_EQ(parse_email("Peter Huewe <peterhuewe@gmx.de>"),
              (std::pair<std::string, std::string>{"Peter Huewe", "peterhuewe@gmx.de"}));
    EXPECT_EQ(parse_email("linux-integrity@vger.kernel.org"),
              (std::pair<std::string, std::string>{"", "linux-integrity@vger.kernel.org"}));
    EXPECT_EQ(format_email("David S. Miller", "davem@davemloft.net"),
              "\"David S. Miller\" <davem@davemloft.net>");
    EXPECT_EQ(format_email("", "a@b"), "a@b");
}

} // namespace
