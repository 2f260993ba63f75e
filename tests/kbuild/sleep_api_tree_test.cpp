// read_sleep_api() on real trees: Debian's 6.1 (the extra jiffy, timers-howto.rst) and 6.12 (no
// extra jiffy, timers-howto.rst), and the v6.13-shaped tree that tests/trees/make_v613_tree.sh
// derives from 6.12 (the new document). fsleep() itself is evaluated with clang: tests/
// integration/sleep_eval_tree_test.cpp. Skipped with a message when setup has not unpacked the
// trees.
#include "../integration/check_tree_6_1.h"
#include "kbuild/sleep_api.h"
#include "require_env.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <memory>

namespace fs = std::filesystem;
using namespace ksweep::kbuild;

namespace {

bool is_tree(const std::string& t) {
    return !t.empty() && fs::exists(t + "/include/linux/delay.h");
}

// The script's stdout (the tree's path) and status.
std::pair<int, std::string> run(const std::string& command) {
    std::string out;
    FILE* p = popen(command.c_str(), "r");
    if (!p)
        return {-1, ""};
    std::array<char, 4096> buf{};
    while (size_t n = fread(buf.data(), 1, buf.size(), p))
        out.append(buf.data(), n);
    int status = pclose(p);
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return {status, out};
}

TEST(KbuildSleepApiOnTrees, Debian61) {
    const std::string tree = ksweep::test::tree_6_1();
    if (!is_tree(tree))
        KSWEEP_SKIP_OR_FAIL("no 6.1 tree: run scripts/setup.sh");
    SleepApi api = read_sleep_api(tree);
    ASSERT_TRUE(api.msleep_extra_jiffy.has_value()) << api.msleep_note;
    EXPECT_TRUE(*api.msleep_extra_jiffy);
    EXPECT_EQ(api.msleep_source.rfind("kernel/time/timer.c:", 0), 0u) << api.msleep_source;
    EXPECT_TRUE(api.has_usleep_range_state) << api.usleep_range_state_note;
    EXPECT_EQ(api.timers_doc, "Documentation/timers/timers-howto.rst");
}

TEST(KbuildSleepApiOnTrees, Debian612) {
    const std::string tree = ksweep::test::tree_6_12();
    if (!is_tree(tree))
        KSWEEP_SKIP_OR_FAIL("no 6.12 tree: run scripts/setup.sh");
    SleepApi api = read_sleep_api(tree);
    ASSERT_TRUE(api.msleep_extra_jiffy.has_value()) << api.msleep_note;
    EXPECT_FALSE(*api.msleep_extra_jiffy);
    EXPECT_EQ(api.msleep_source.rfind("kernel/time/timer.c:", 0), 0u) << api.msleep_source;
    EXPECT_EQ(api.timers_doc, "Documentation/timers/timers-howto.rst");
}

// The script derives the tree into the cache (hard links, about 2 s; reused while its key
// holds); read_sleep_api() must see v6.13's document there although the Makefile still says
// 6.12, and the 6.12 tree itself must be untouched.
TEST(KbuildSleepApiOnTrees, V613ShapedTreeFromTheScript) {
    const std::string tree = ksweep::test::tree_6_12();
    if (!is_tree(tree))
        KSWEEP_SKIP_OR_FAIL("no 6.12 tree to derive the v6.13-shaped one from: run "
                            "scripts/setup.sh");
    auto [status, made] =
        run(std::string(KSWEEP_SOURCE_DIR) + "/tests/trees/make_v613_tree.sh '" + tree + "'");
    ASSERT_EQ(status, 0) << made;
    ASSERT_TRUE(is_tree(made)) << made;
    SleepApi api = read_sleep_api(made);
    EXPECT_EQ(api.timers_doc, "Documentation/timers/delay_sleep_functions.rst");
    ASSERT_TRUE(api.msleep_extra_jiffy.has_value());
    EXPECT_FALSE(*api.msleep_extra_jiffy);

    SleepApi original = read_sleep_api(tree);
    EXPECT_EQ(original.timers_doc, "Documentation/timers/timers-howto.rst");

    // A second run reuses the copy.
    auto [again_status, again] =
        run(std::string(KSWEEP_SOURCE_DIR) + "/tests/trees/make_v613_tree.sh '" + tree + "' 2>&1");
    EXPECT_EQ(again_status, 0);
    EXPECT_EQ(again, made);
}

} // namespace
