// plan_sweep on its own: trees never share a series, a tree's parts, and against a previous
// index the names and change-ids that stay, the series that finish, names never reused.
#include "series/maintainer_tree.h"
#include "series/sweep_plan.h"

#include <gtest/gtest.h>

using namespace ksweep::series;

namespace {

std::vector<std::string> names(const SweepPlan& p) {
    std::vector<std::string> out;
    for (const auto& s : p.series)
        out.push_back(s.name);
    return out;
}

TEST(SweepPlanTest, TreesSplitIntoTheirOwnParts) {
    std::vector<PatchSlot> slots = {{"a", "T: iio", "iio"},
                                    {"b", "T: iio", "iio"},
                                    {"c", "T: input", "input"},
                                    {"d", "T: iio", "iio"}};
    SweepPlan p = plan_sweep(slots, 2, nullptr, "20261202");
    EXPECT_EQ(names(p), (std::vector<std::string>{"iio", "input", "iio-2"}));
    EXPECT_EQ(p.series[0].patches, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(p.series[2].patches, (std::vector<size_t>{3}));
    EXPECT_EQ(p.series[0].change_id.rfind("20261202-iio-", 0), 0u);
    EXPECT_EQ(p.series[0].change_id.size(), std::string("20261202-iio-").size() + 12);
}

TEST(SweepPlanTest, PreviousIndexKeepsNamesAndFinishesWhatIsGone) {
    SweepIndex before;
    before.series.push_back({"iio",
                             "20261101-iio-aaaaaaaaaaaa",
                             "",
                             "T: iio",
                             "",
                             1,
                             "",
                             "",
                             {},
                             {},
                             {{"a", "", {}, 1, "", "", {}, {}}},
                             {}});
    before.series.push_back({"iio-2",
                             "20261101-iio-2-bbbbbbbbbbbb",
                             "",
                             "T: iio",
                             "",
                             1,
                             "",
                             "",
                             {},
                             {},
                             {{"b", "", {}, 1, "", "", {}, {}}},
                             {}});
    // a was applied; b stays; e is new to the tree.
    std::vector<PatchSlot> slots = {{"b", "T: iio", "iio"}, {"e", "T: iio", "iio"}};
    SweepPlan p = plan_sweep(slots, 15, &before, "20261202");
    EXPECT_EQ(names(p), (std::vector<std::string>{"iio-2", "iio-3"}));
    EXPECT_EQ(p.series[0].change_id, "20261101-iio-2-bbbbbbbbbbbb");
    EXPECT_EQ(p.series[0].previous, &before.series[1]);
    ASSERT_EQ(p.finished.size(), 1u);
    EXPECT_EQ(p.finished[0].name, "iio");
    // A finished name is an identity too: the run after does not hand it out again.
    before.series.erase(before.series.begin());
    before.finished = p.finished;
    SweepPlan later = plan_sweep({{"f", "T: iio", "iio"}}, 15, &before, "20261203");
    EXPECT_EQ(names(later), (std::vector<std::string>{"iio-3"}));
}

TEST(SweepPlanTest, TreeSlugs) {
    EXPECT_EQ(tree_slug("git git://git.kernel.org/pub/scm/linux/kernel/git/jic23/iio.git"), "iio");
    EXPECT_EQ(tree_slug("git git://git.kernel.org/pub/scm/linux/kernel/git/broonie/linux.git "
                        "for-next"),
              "broonie");
    EXPECT_EQ(tree_slug("quilt https://example.org/patches/"), "patches");
}

} // namespace
