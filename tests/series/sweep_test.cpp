// A sweep over a small git fixture tree (C files and a MAINTAINERS written here, scanned and
// fixed for real): one series per maintainer tree, split into parts of that tree only, an
// index, names and contents that a re-run keeps, a series applied to the tree dropped on the
// next run, "Changes in v2" on a reroll, and --plan writing nothing.
#include "rewrite/fixer.h"
#include "rewrite/scanner.h"
#include "series/series.h"
#include "test_repo.h"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <regex>

namespace fs = std::filesystem;
using namespace ksweep;
using namespace ksweep::series;
using namespace ksweep::test;

namespace {

constexpr long long kNow = 1790000000;

// IIO and INPUT name their trees; the ADC driver's own section names none (so IIO's tree takes
// it); MISC THING names none and THE REST's (Linus') tree does not count.
const char* kMaintainers =
    "List of maintainers\n"
    "-------------------\n\n"
    "FOO ADC DRIVER\n"
    "M:\tAda Adc <ada@example.org>\n"
    "S:\tMaintained\n"
    "F:\tdrivers/iio/adc/foo_adc.c\n\n"
    "IIO SUBSYSTEM AND DRIVERS\n"
    "M:\tJonathan Cameron <jic23@kernel.org>\n"
    "L:\tlinux-iio@vger.kernel.org\n"
    "S:\tMaintained\n"
    "T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/jic23/iio.git\n"
    "F:\tdrivers/iio/\n\n"
    "INPUT (KEYBOARD, MOUSE, JOYSTICK, TOUCHSCREEN) DRIVERS\n"
    "M:\tDmitry Torokhov <dmitry.torokhov@gmail.com>\n"
    "L:\tlinux-input@vger.kernel.org\n"
    "S:\tMaintained\n"
    "T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/dtor/input.git\n"
    "F:\tdrivers/input/\n\n"
    "MISC THING DRIVER\n"
    "M:\tMia Misc <mia@example.org>\n"
    "L:\tmisc@example.org\n"
    "S:\tMaintained\n"
    "F:\tdrivers/misc/thing.c\n\n"
    "THE REST\n"
    "M:\tLinus Torvalds <torvalds@linux-foundation.org>\n"
    "L:\tlinux-kernel@vger.kernel.org\n"
    "S:\tBuried alive in reporters\n"
    "T:\tgit git://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git\n"
    "F:\t*\n"
    "F:\t*/\n";

std::string driver(const std::string& name, int ms) {
    return "// SPDX-License-Identifier: GPL-2.0\n#include <linux/delay.h>\n\nstatic void " + name +
           "_wait(void)\n{\n\tmsleep(" + std::to_string(ms) + ");\n}\n";
}

const std::map<std::string, std::vector<std::string>> kDrivers = {
    {"drivers/iio/adc", {"bar_adc", "foo_adc"}},
    {"drivers/iio/light", {"baz_light"}},
    {"drivers/input/misc", {"qux_input"}},
    {"drivers/input/touchscreen", {"quux_ts"}},
    {"drivers/misc", {"thing"}},
};

class SweepTest : public ::testing::Test {
  protected:
    void SetUp() override {
        repo = tmp.path() + "/linux";
        init_repo(repo);
        write_file(repo + "/MAINTAINERS", kMaintainers);
        write_file(repo + "/Makefile", "VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 0\n");
        int ms = 1;
        for (const auto& [dir, names] : kDrivers) {
            std::string makefile;
            for (const auto& n : names) {
                write_file(repo + "/" + dir + "/" + n + ".c", driver(n, ms++));
                makefile += "obj-y += " + n + ".o\n";
            }
            write_file(repo + "/" + dir + "/Makefile", makefile);
        }
        run_git(repo, "add -A");
        run_git(repo, "commit -q -m 'Import'");
        opts.tree = repo;
        opts.out_dir = tmp.path() + "/out";
        opts.cache_dir = tmp.path() + "/cache";
        opts.now = kNow;
        opts.signature = "ksweep test";
    }

    FixResult fix_tree() {
        ScanOptions scan;
        scan.tree = repo;
        scan.semantic = false;
        scan.hz = 250;
        scan.jobs = 1;
        return plan_fixes(rule, scan, scan_tree(rule, scan));
    }

    SeriesResult sweep() { return write_series(rule, fix_tree(), opts); }

    static const WrittenSeries* named(const SeriesResult& r, const std::string& name) {
        for (const auto& s : r.series)
            if (s.name == name)
                return &s;
        return nullptr;
    }

    // Every mail of the output, by path below it.
    std::map<std::string, std::string> mails() {
        std::map<std::string, std::string> out;
        for (const auto& e : fs::recursive_directory_iterator(opts.out_dir))
            if (e.path().extension() == ".patch")
                out[fs::relative(e.path(), opts.out_dir).string()] = read_file(e.path());
        return out;
    }

    Rule rule = load_rule(std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
    TempDir tmp;
    std::string repo;
    SeriesOptions opts;
};

TEST_F(SweepTest, OneSeriesPerMaintainerTreeNeverMixed) {
    SeriesResult r = sweep();
    std::vector<std::string> names;
    for (const auto& s : r.series)
        names.push_back(s.name);
    EXPECT_EQ(names, (std::vector<std::string>{"iio", "input", "misc-thing-driver"}));
    // foo_adc's own section names no tree: IIO's applies it.
    EXPECT_EQ(r.index.series[0].tree,
              "git git://git.kernel.org/pub/scm/linux/kernel/git/jic23/iio.git");
    EXPECT_EQ(r.index.series[0].patches.size(), 3u);
    EXPECT_EQ(r.index.series[1].entry, "INPUT (KEYBOARD, MOUSE, JOYSTICK, TOUCHSCREEN) DRIVERS");
    // A section without T: is its own tree, not Linus'.
    EXPECT_EQ(r.index.series[2].tree, "");
    EXPECT_EQ(r.index.series[2].tree_key, "M/L: Mia Misc <mia@example.org>, misc@example.org");
    for (const auto& s : r.index.series)
        for (const auto& p : s.patches)
            for (const auto& f : p.files)
                EXPECT_EQ(f.rfind(s.name == "iio"     ? "drivers/iio/"
                                  : s.name == "input" ? "drivers/input/"
                                                      : "drivers/misc/",
                                  0),
                          0u)
                    << s.name << ": " << f;
    // Each series has its own cover letter, to its own people only.
    const WrittenSeries* input = named(r, "input");
    ASSERT_NE(input, nullptr);
    std::string cover = read_file(input->files[0]);
    // Its subject, too, writes Input's verb in lower case.
    EXPECT_NE(cover.find("Subject: [PATCH 0/2] Input: use usleep_range() for short sleeps\n"),
              std::string::npos)
        << cover;
    EXPECT_EQ(cover.find("jic23"), std::string::npos);
    EXPECT_EQ(input->to, (std::vector<std::string>{"Dmitry Torokhov <dmitry.torokhov@gmail.com>"}));
    // Input writes its verb in lower case after the dash.
    EXPECT_NE(read_file(input->files[1]).find("Subject: [PATCH 1/2] Input: qux_input - use "),
              std::string::npos);
    // The index, for scripts and for people.
    std::string json = read_file(opts.out_dir + "/index.json");
    EXPECT_NE(json.find("\"totals\": {\"series\": 3, \"patches\": 6, \"sites\": 6"),
              std::string::npos)
        << json;
    EXPECT_NE(read_file(opts.out_dir + "/index.md").find("| [iio](iio/) | 1 | git git://"),
              std::string::npos);
}

TEST_F(SweepTest, ATreeWithMoreThanOnePostingIsSplitIntoPartsOfItsOwn) {
    opts.max_patches = 2;
    SeriesResult r = sweep();
    std::vector<std::string> names;
    for (const auto& s : r.series)
        names.push_back(s.name);
    EXPECT_EQ(names, (std::vector<std::string>{"iio", "iio-2", "input", "misc-thing-driver"}));
    const WrittenSeries* second = named(r, "iio-2");
    ASSERT_NE(second, nullptr);
    ASSERT_EQ(second->subjects.size(), 1u);
    EXPECT_EQ(second->subjects[0].rfind("iio: light: baz_light: Use ", 0), 0u);
    std::string cover =
        std::regex_replace(read_file(named(r, "iio")->files[0]), std::regex("\\s+"), " ");
    EXPECT_NE(cover.find("The patches are for git git://git.kernel.org/pub/scm/linux/kernel/git/"
                         "jic23/iio.git (IIO SUBSYSTEM AND DRIVERS in MAINTAINERS)"),
              std::string::npos)
        << cover;
    EXPECT_NE(cover.find("2 series of at most 2 (iio and iio-2); this is iio."), std::string::npos)
        << cover;
}

TEST_F(SweepTest, RerunOnTheSameTreeWritesTheSameNamesAndContent) {
    SeriesResult first = sweep();
    auto before = mails();
    SeriesResult again = sweep(); // into the same folder: its index makes this the next run
    EXPECT_EQ(mails(), before);
    ASSERT_EQ(again.series.size(), first.series.size());
    for (size_t i = 0; i < first.series.size(); ++i) {
        EXPECT_EQ(again.series[i].name, first.series[i].name);
        EXPECT_EQ(again.series[i].change_id, first.series[i].change_id);
    }
    EXPECT_TRUE(again.index.finished.empty());
}

TEST_F(SweepTest, SeriesAppliedToTheTreeIsDroppedOnTheNextRun) {
    SeriesResult first = sweep();
    const WrittenSeries* input = named(first, "input");
    ASSERT_NE(input, nullptr);
    for (const auto& f : input->files)
        if (f.find("cover-letter") == std::string::npos)
            run_git(repo, "am -q " + quote(f));

    SeriesResult next = sweep();
    std::vector<std::string> names;
    for (const auto& s : next.series)
        names.push_back(s.name);
    EXPECT_EQ(names, (std::vector<std::string>{"iio", "misc-thing-driver"}));
    EXPECT_EQ(named(next, "iio")->change_id, named(first, "iio")->change_id);
    ASSERT_EQ(next.index.finished.size(), 1u);
    EXPECT_EQ(next.index.finished[0].name, "input");
    EXPECT_EQ(next.index.finished[0].change_id, input->change_id);
    EXPECT_FALSE(fs::exists(opts.out_dir + "/input"));
    EXPECT_NE(read_file(opts.out_dir + "/index.md").find("## Finished\n\n- input"),
              std::string::npos);
    // The next run starts from the tree as it is now.
    EXPECT_EQ(named(next, "iio")->base, trim_newline(run_git(repo, "rev-parse HEAD")));
}

TEST_F(SweepTest, RerollSaysWhatChangedSinceTheLastVersion) {
    SeriesResult first = sweep();
    // foo_adc is fixed upstream by someone else; the other iio patches stay.
    std::string foo = repo + "/drivers/iio/adc/foo_adc.c";
    std::string text = read_file(foo);
    text.replace(text.find("msleep(2)"), 9, "usleep_range(2000, 2500)");
    write_file(foo, text);
    run_git(repo, "commit -q -am 'iio: adc: foo_adc: Use usleep_range()'");
    // A driver new to the sweep, in a tree no series had: its series is a first version.
    write_file(repo + "/drivers/staging/fresh.c", driver("fresh", 3));
    run_git(repo, "add -A");
    run_git(repo, "commit -q -m 'Add drivers'");
    opts.reroll = 2;
    SeriesResult second = sweep();
    const WrittenSeries* iio = named(second, "iio");
    ASSERT_NE(iio, nullptr);
    std::string cover = read_file(iio->files[0]);
    EXPECT_NE(cover.find("Subject: [PATCH v2 0/2] iio: "), std::string::npos) << cover;
    EXPECT_NE(cover.find("Changes in v2:\n- Dropped iio: adc: foo_adc: Use"), std::string::npos)
        << cover;
    EXPECT_NE(cover.find("- Rebased onto " + iio->base.substr(0, 12)), std::string::npos) << cover;
    EXPECT_EQ(second.index.series[0].version, 2);
    const WrittenSeries* fresh = named(second, "the-rest");
    ASSERT_NE(fresh, nullptr);
    EXPECT_NE(read_file(fresh->files[0]).find("Subject: [PATCH] staging: "), std::string::npos)
        << read_file(fresh->files[0]);
    // A one-patch series has no cover letter to say it in, and the run says so.
    bool said = false;
    for (const auto& w : second.warnings)
        said |= w.find("misc-thing-driver: the changes since v1 are not written") == 0;
    EXPECT_TRUE(said);
}

TEST_F(SweepTest, PlanDecidesEverythingAndWritesNothing) {
    std::string foo = repo + "/drivers/iio/adc/foo_adc.c";
    write_file(foo, read_file(foo) + "/* a local note */\n");
    run_git(repo, "commit -q -am 'foo: my local note'");
    opts.plan_only = true;
    std::string branches = run_git(repo, "branch --list");
    SeriesResult r = sweep();
    EXPECT_FALSE(fs::exists(opts.out_dir));
    EXPECT_EQ(run_git(repo, "branch --list"), branches);
    ASSERT_EQ(r.index.series.size(), 3u);
    const auto& foo_patch = r.index.series[0].patches[1];
    EXPECT_EQ(foo_patch.files, (std::vector<std::string>{"drivers/iio/adc/foo_adc.c"}));
    EXPECT_EQ(foo_patch.to, (std::vector<std::string>{"Ada Adc <ada@example.org>",
                                                      "Jonathan Cameron <jic23@kernel.org>"}));
    // One local commit ("Import") is not enough history to decide a prefix.
    EXPECT_EQ(foo_patch.prefix_source.rfind("table ", 0), 0u) << foo_patch.prefix_source;
    EXPECT_NE(foo_patch.prefix_source.find(" (history: 1 of 1 commit touching "
                                           "drivers/iio/adc/foo_adc.c writes 'foo: ', fewer than "
                                           "3)"),
              std::string::npos)
        << foo_patch.prefix_source;
    // And `ksweep series` says so on stderr, one line per patch.
    EXPECT_NE(std::find(r.prefix_notes.begin(), r.prefix_notes.end(),
                        "prefix '" + foo_patch.subject.substr(0, foo_patch.subject.find("Use ")) +
                            "' from " + foo_patch.prefix_source),
              r.prefix_notes.end());
}

} // namespace

namespace {

// An output folder is one sweep: another rule's index there is not continued.
TEST_F(SweepTest, AnotherRulesSweepIsNotContinued) {
    write_file(opts.out_dir + "/index.json",
               "{\"format\": \"ksweep-sweep-index\", \"rule\": \"other\", \"series\": []}\n");
    try {
        sweep();
        ADD_FAILURE() << "another rule's sweep was continued";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("holds a sweep of rule other"), std::string::npos)
            << e.what();
    }
}

} // namespace

namespace {

// index.json as render_index_json writes it reads back as it was; a field of the wrong type is
// named by its place in the file.
TEST(SweepIndexJson, ReadsBackWhatItWroteAndNamesAWrongField) {
    SweepIndex index;
    index.rule = "msleep_small";
    index.tree = "/t";
    index.base = "0123";
    IndexSeries s;
    s.name = "iio";
    s.change_id = "20261202-iio-0123456789ab";
    s.version = 2;
    s.tree = "git://x/iio.git";
    s.to = {"a@example.org"};
    s.patches.push_back({"module drivers/iio/adc/foo",
                         "iio: adc: foo: use usleep_range()",
                         {"drivers/iio/adc/foo.c"},
                         3,
                         "history: 30 commits",
                         "ab",
                         {},
                         {"c@x"}});
    index.series.push_back(s);
    index.finished.push_back({"input", "20261201-input-0", "git://y", "applied"});
    index.left_alone.push_back({"drivers/x/y.c:42", "argument is not a constant"});
    TempDir dir;
    const std::string path = dir.path() + "/index.json";
    write_file(path, render_index_json(index));
    SweepIndex back = load_index(path);
    EXPECT_EQ(render_index_json(back), render_index_json(index));
    ASSERT_EQ(back.series.size(), 1u);
    EXPECT_EQ(back.series[0].version, 2);
    EXPECT_EQ(back.series[0].patches[0].sites, 3u);
    EXPECT_EQ(back.series[0].patches[0].cc, (std::vector<std::string>{"c@x"}));

    std::string text = render_index_json(index);
    text.replace(text.find("\"version\": 2"), 12, "\"version\": \"2\"");
    write_file(path, text);
    try {
        load_index(path);
        ADD_FAILURE() << "a string version was read";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()), path + ": series[0]: 'version' must be an integer");
    }
    write_file(path, "{\"format\": \"ksweep-sweep-index\", \"series\": [{\"name\": \"a\"}]}");
    try {
        load_index(path);
        ADD_FAILURE() << "a series without change_id was read";
    } catch (const std::runtime_error& e) {
        EXPECT_EQ(std::string(e.what()),
                  path + ": series[0]: a series needs 'name' and 'change_id'");
    }
}

// index.json is read back from the output directory, which anyone may have written: a series
// name is a folder there (its mails are cleared and written), its files are tree paths.
TEST(SweepIndexJson, NamesAndFilesThatLeaveTheirPlaceAreRefused) {
    TempDir dir;
    const std::string path = dir.path() + "/index.json";
    auto error = [&](const std::string& series) {
        write_file(path, "{\"format\": \"ksweep-sweep-index\", \"series\": [" + series + "]}");
        try {
            load_index(path);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(error("{\"name\": \"../../home/ci\", \"change_id\": \"x\"}"),
              path + ": series[0].name: path ../../home/ci: a '..' component leaves the tree");
    EXPECT_NE(error("{\"name\": \"iio/x\", \"change_id\": \"x\"}").find("a single name"),
              std::string::npos);
    EXPECT_EQ(error("{\"name\": \"iio\", \"change_id\": \"x\", \"patches\": [{\"files\": "
                    "[\"a.c\", \"/etc/passwd\"]}]}"),
              path + ": series[0].patches[0].files[1]: path /etc/passwd: an absolute path: a "
                     "patch names files relative to the tree");
    write_file(path, "{\"format\": \"ksweep-sweep-index\", \"finished\": [{\"name\": \"..\"}]}");
    EXPECT_THROW(load_index(path), std::runtime_error);
}

// `validate --series OUT` adds each series' levels to the index: written, read back, counted
// in the totals, and shown per series in index.md with how many patches L4 proved.
TEST(SweepIndexJson, ValidationOfEachSeriesReadsBackAndIsCounted) {
    SweepIndex index;
    index.rule = "msleep_small";
    IndexSeries iio;
    iio.name = "iio";
    iio.change_id = "20261202-iio-0";
    iio.patches.resize(3);
    SeriesValidation v;
    v.report = "../reports/iio";
    v.patches = 3;
    v.levels[0] = {3, 0, 0};
    v.levels[1] = {2, 1, 0};
    v.levels[2] = {3, 0, 0};
    v.levels[3] = {1, 0, 2};
    iio.validation = v;
    IndexSeries input = iio;
    input.name = "input";
    input.validation.reset(); // not validated (yet): said, not counted
    index.series = {iio, input};
    TempDir dir;
    const std::string path = dir.path() + "/index.json";
    write_file(path, render_index_json(index));
    SweepIndex back = load_index(path);
    ASSERT_TRUE(back.series[0].validation);
    EXPECT_EQ(back.series[0].validation->levels[1].failed, 1u);
    EXPECT_EQ(back.series[0].validation->proven(), 1u);
    EXPECT_FALSE(back.series[1].validation);
    EXPECT_EQ(render_index_json(back), render_index_json(index));
    std::string json = render_index_json(index);
    EXPECT_NE(json.find("\"validated_patches\": 3, \"proven_l4\": 1"), std::string::npos) << json;
    std::string md = render_index_markdown(index);
    EXPECT_NE(md.find("1 of 3 patches proven at L4"), std::string::npos) << md;
    EXPECT_NE(md.find("| 3/3 | 2/3 (1 failed) | 3/3 | 1/3 | [FAILED](../reports/iio/report.md) |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| - | - | - | - | not validated |"), std::string::npos) << md;
}

} // namespace
