// The build dir every command uses: found, checked against the tree's version, or prepared
// with the tree's own kbuild into the cache. The preparing tests run a stand-in kbuild — a
// small Makefile written here that answers `O=DIR allmodconfig` and `modules_prepare` the way
// kbuild does (a .config and generated headers in DIR) and counts its runs — so the cache,
// lock and failure paths are tested in milliseconds; tests/integration prepares a real tree.
#include "core/file_io.h"
#include "kbuild/prepared_build.h"
#include "test_files.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace ksweep;
using namespace ksweep::kbuild;

namespace {

using test::write_file;

std::string makefile_version(int major, int minor, int sub) {
    return "VERSION = " + std::to_string(major) + "\nPATCHLEVEL = " + std::to_string(minor) +
           "\nSUBLEVEL = " + std::to_string(sub) + "\nEXTRAVERSION =\n";
}

// A stand-in for kbuild: `make -C TREE O=DIR allmodconfig|olddefconfig|modules_prepare`.
// FAIL_PREPARE=1 in the tree makes modules_prepare fail the way a compiler error does.
std::string fake_kbuild(int major, int minor, int sub) {
    return makefile_version(major, minor, sub) +
           "allmodconfig:\n"
           "\tprintf 'CONFIG_HZ_300=y\\nCONFIG_HZ=300\\n' > $(O)/.config\n"
           "\techo run >> $(O)/runs\n"
           "olddefconfig:\n"
           "\techo run >> $(O)/runs\n"
           "modules_prepare:\n"
           "\t@if [ -f FAIL_PREPARE ]; then echo 'foo.c:1:2: error: no such thing'; exit 1; fi\n"
           "\tmkdir -p $(O)/include/generated && touch $(O)/include/generated/autoconf.h\n"
           "\tln -sfn $(CURDIR) $(O)/source\n";
}

struct Trees {
    TempDir scratch{"ksweep-prepared-test"};
    fs::path tree = scratch.path() / "linux";
    fs::path cache = scratch.path() / "cache";

    Trees() {
        write_file(tree / "Makefile", fake_kbuild(6, 12, 7));
        write_file(tree / "scripts/kconfig/Makefile", "# kbuild's configuration targets\n");
    }

    BuildDirRequest request() const {
        BuildDirRequest r;
        r.tree = tree.string();
        r.cache_dir = cache.string();
        return r;
    }
};

size_t runs_in(const std::string& dir) {
    auto text = read_file(fs::path(dir) / "runs").value_or("");
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

} // namespace

TEST(PreparedBuildTest, PreparesWithTheTreesKbuildOnceThenUsesTheCache) {
    Trees t;
    BuildDir first = resolve_build_dir(t.request());
    ASSERT_FALSE(first.dir.empty());
    EXPECT_TRUE(first.made_now);
    EXPECT_EQ(first.dir.rfind((t.cache / "builds").string(), 0), 0u) << first.dir;
    EXPECT_NE(first.config_source.find("allmodconfig"), std::string::npos);
    EXPECT_EQ(first.hz, 300);
    // The issue-31 case: the tree has no .config; HZ is allmodconfig's, in the build dir
    // ksweep made, and every label says so (mails once said "from the tree's config").
    EXPECT_EQ(choose_hz(0, first).label,
              "HZ=300 from allmodconfig (the build dir ksweep made; the tree has no .config)");
    ASSERT_TRUE(first.version);
    EXPECT_EQ(first.version->minor, 12);
    EXPECT_TRUE(fs::exists(fs::path(first.dir) / "include/generated/autoconf.h"));

    BuildDir second = resolve_build_dir(t.request());
    EXPECT_EQ(second.dir, first.dir);
    EXPECT_FALSE(second.made_now);
    EXPECT_EQ(runs_in(second.dir), 1u) << "the second run must not run make again";
}

TEST(PreparedBuildTest, NeverWritesIntoTheTree) {
    Trees t;
    auto before = fs::last_write_time(t.tree);
    resolve_build_dir(t.request());
    EXPECT_FALSE(fs::exists(t.tree / ".config"));
    EXPECT_FALSE(fs::exists(t.tree / "include"));
    EXPECT_EQ(fs::last_write_time(t.tree), before);
}

TEST(PreparedBuildTest, AChangedKconfigMakesANewBuildDir) {
    Trees t;
    BuildDir first = resolve_build_dir(t.request());
    write_file(t.tree / "Kconfig", "config NEW\n\tbool\n");
    BuildDir second = resolve_build_dir(t.request());
    EXPECT_NE(second.dir, first.dir);
    EXPECT_TRUE(second.made_now);
}

TEST(PreparedBuildTest, ADriverSourceEditKeepsTheBuildDir) {
    Trees t;
    BuildDir first = resolve_build_dir(t.request());
    write_file(t.tree / "drivers/foo/foo.c", "int x;\n"); // the patch under test, say
    BuildDir second = resolve_build_dir(t.request());
    EXPECT_EQ(second.dir, first.dir);
    EXPECT_FALSE(second.made_now);
}

TEST(PreparedBuildTest, AFailedPrepareQuotesMakeAndLeavesNothingTrusted) {
    Trees t;
    write_file(t.tree / "FAIL_PREPARE", "");
    try {
        resolve_build_dir(t.request());
        FAIL() << "a failing prepare must throw";
    } catch (const BuildDirError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("foo.c:1:2: error: no such thing"), std::string::npos) << what;
        EXPECT_NE(what.find("modules_prepare"), std::string::npos) << what;
    }
    fs::remove(t.tree / "FAIL_PREPARE");
    BuildDir again = resolve_build_dir(t.request());
    EXPECT_TRUE(again.made_now) << "the failed attempt must not be trusted";
}

TEST(PreparedBuildTest, AnInterruptedPrepareIsMadeAgain) {
    Trees t;
    BuildDir first = resolve_build_dir(t.request());
    // What a killed run leaves: the directory without its completion marker.
    fs::remove(fs::path(first.dir) / ".ksweep-prepared");
    BuildDir second = resolve_build_dir(t.request());
    EXPECT_EQ(second.dir, first.dir);
    EXPECT_TRUE(second.made_now);
    EXPECT_EQ(runs_in(second.dir), 1u) << "the half entry is removed, not built on";
}

TEST(PreparedBuildTest, AConfigFileIsItsOwnBuildDir) {
    Trees t;
    write_file(t.scratch.path() / "my.config", "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n");
    BuildDirRequest r = t.request();
    r.config_file = (t.scratch.path() / "my.config").string();
    BuildDir mine = resolve_build_dir(r);
    BuildDir deflt = resolve_build_dir(t.request());
    EXPECT_NE(mine.dir, deflt.dir);
    EXPECT_EQ(mine.hz, 1000);
    EXPECT_NE(mine.config_source.find("--config"), std::string::npos);
}

TEST(PreparedBuildTest, ABuildDirOfAnotherVersionIsAnErrorThatSaysWhatToDo) {
    Trees t;
    fs::path other = t.scratch.path() / "headers-6.1";
    write_file(other / "Makefile", makefile_version(6, 1, 9));
    BuildDirRequest r = t.request();
    r.build_dir = other.string();
    try {
        resolve_build_dir(r);
        FAIL() << "a version mismatch must throw";
    } catch (const BuildDirError& e) {
        std::string what = e.what();
        EXPECT_NE(what.find("6.1.9"), std::string::npos) << what;
        EXPECT_NE(what.find("6.12.7"), std::string::npos) << what;
        EXPECT_NE(what.find("leave --build-dir out"), std::string::npos) << what;
    }
}

TEST(PreparedBuildTest, ABuildDirOfTheSameVersionIsUsedAsGiven) {
    Trees t;
    fs::path mine = t.scratch.path() / "o";
    write_file(mine / "Makefile", makefile_version(6, 12, 7));
    write_file(mine / ".config", "CONFIG_HZ=100\n");
    BuildDirRequest r = t.request();
    r.build_dir = mine.string();
    BuildDir build = resolve_build_dir(r);
    EXPECT_EQ(build.dir, fs::absolute(mine).lexically_normal().string());
    EXPECT_EQ(build.origin, "--build-dir");
    EXPECT_EQ(choose_hz(0, build).hz, 100);
    EXPECT_EQ(choose_hz(1000, build).source, "--hz");
    // Every figure's label says HZ's real source, and names no path.
    EXPECT_EQ(choose_hz(0, build).label, "HZ=100 from the .config of the --build-dir");
    EXPECT_EQ(choose_hz(1000, build).label, "HZ=1000 as given with --hz");
}

TEST(PreparedBuildTest, ATreeWithItsOwnConfigButNoPrepareIsRefusedWithTheWayOut) {
    Trees t;
    write_file(t.tree / ".config", "CONFIG_HZ=250\n");
    try {
        resolve_build_dir(t.request());
        FAIL() << "kbuild cannot build such a tree elsewhere";
    } catch (const BuildDirError& e) {
        EXPECT_NE(std::string(e.what()).find("modules_prepare"), std::string::npos) << e.what();
    }
}

TEST(PreparedBuildTest, ATreePreparedInPlaceIsItsOwnBuildDir) {
    Trees t;
    write_file(t.tree / ".config", "CONFIG_HZ=250\n");
    write_file(t.tree / "include/generated/autoconf.h", "");
    BuildDir build = resolve_build_dir(t.request());
    EXPECT_EQ(build.dir, fs::absolute(t.tree).lexically_normal().string());
    EXPECT_EQ(build.hz, 250);
    EXPECT_FALSE(build.made_now);
    EXPECT_EQ(choose_hz(0, build).label, "HZ=250 from the tree's .config");
}

TEST(PreparedBuildTest, FindOnlyRequestsSayWhyThereIsNone) {
    Trees t;
    BuildDirRequest r = t.request();
    r.may_prepare = false;
    BuildDir none = resolve_build_dir(r);
    EXPECT_TRUE(none.dir.empty());
    EXPECT_NE(none.missing.find("6.12.7"), std::string::npos) << none.missing;
    EXPECT_FALSE(fs::exists(t.cache / "builds"));
    HzChoice hz = choose_hz(0, none);
    EXPECT_EQ(hz.hz, 250);
    EXPECT_EQ(hz.label, "HZ=250, ksweep's default (no config states HZ)");
    EXPECT_NE(describe(none, hz).find(hz.label), std::string::npos);
}

TEST(PreparedBuildTest, ATreeWithoutKbuildIsParsedWithoutOneAndSaysSo) {
    Trees t;
    fs::remove_all(t.tree / "scripts");
    BuildDir none = resolve_build_dir(t.request());
    EXPECT_TRUE(none.dir.empty());
    EXPECT_NE(none.missing.find("no kbuild"), std::string::npos) << none.missing;
    // A stand-in tree (its own headers, no kbuild, as our fixtures): no talk of sparse checkouts.
    write_file(t.tree / "include/linux/delay.h", "\n");
    EXPECT_EQ(resolve_build_dir(t.request()).missing,
              "no prepared build dir of Linux 6.12.7, and the tree has no kbuild "
              "(scripts/kconfig) to make one: parsed without kbuild (give --build-dir DIR)");
    EXPECT_FALSE(fs::exists(t.cache / "builds"));
}

TEST(PreparedBuildTest, NotAKernelTreeHasNoBuildDirAndSaysSo) {
    TempDir plain("ksweep-plain-tree");
    BuildDirRequest r;
    r.tree = plain.path().string();
    BuildDir none = resolve_build_dir(r);
    EXPECT_TRUE(none.dir.empty());
    EXPECT_NE(none.missing.find("not a kernel tree"), std::string::npos);
}

// A sparse checkout of a tree (no kbuild, no include/): the build dir ksweep made from a full
// tree of the same version serves it, with a view that shows that tree's headers and the build
// dir's generated ones together (an O= build dir holds only the generated ones).
TEST(PreparedBuildTest, ASparseCheckoutParsesWithTheBuildDirOfAFullTreeOfItsVersion) {
    Trees t;
    write_file(t.tree / "include/linux/delay.h", "void msleep(unsigned int msecs);\n");
    write_file(t.tree / "arch/x86/include/asm/delay.h", "\n");
    BuildDir full = resolve_build_dir(t.request());
    ASSERT_TRUE(full.made_now);
    EXPECT_TRUE(full.parse_view.empty()); // the full tree needs none
    EXPECT_EQ(full.parse_dir(), full.dir);
    write_file(fs::path(full.dir) / "arch/x86/include/generated/asm/cpufeaturemasks.h", "\n");

    const fs::path sparse = t.scratch.path() / "sparse";
    write_file(sparse / "Makefile", makefile_version(6, 12, 7));
    write_file(sparse / "drivers/char/tpm/tpm.h", "enum { TPM_TIMEOUT = 5 };\n");
    BuildDirRequest r = t.request();
    r.tree = sparse.string();
    BuildDir build = resolve_build_dir(r);
    EXPECT_EQ(build.dir, full.dir);
    EXPECT_FALSE(build.made_now);
    EXPECT_EQ(build.sources, fs::canonical(t.tree).string());
    EXPECT_NE(build.origin.find("full tree of the same version"), std::string::npos)
        << build.origin;
    EXPECT_NE(build.origin.find("sparse checkout"), std::string::npos) << build.origin;
    EXPECT_EQ(build.hz, 300);
    EXPECT_NE(build.config_source.find("allmodconfig"), std::string::npos) << build.config_source;
    ASSERT_FALSE(build.parse_view.empty());
    EXPECT_EQ(build.parse_dir(), build.parse_view);
    const fs::path view = build.parse_view;
    EXPECT_TRUE(fs::exists(view / "include/linux/delay.h"));
    EXPECT_TRUE(fs::exists(view / "include/generated/autoconf.h"));
    EXPECT_TRUE(fs::exists(view / "arch/x86/include/asm/delay.h"));
    EXPECT_TRUE(fs::exists(view / "arch/x86/include/generated/asm/cpufeaturemasks.h"));
    EXPECT_TRUE(fs::exists(view / ".config"));
    EXPECT_FALSE(fs::exists(sparse / "include")); // nothing written into the checkout

    // Given as --build-dir, the same build dir gets the same view.
    r.build_dir = full.dir;
    BuildDir given = resolve_build_dir(r);
    EXPECT_EQ(given.parse_view, build.parse_view);

    // Another version's build dir does not serve it: parsed without one, and said what to do.
    write_file(sparse / "Makefile", makefile_version(6, 12, 8));
    r.build_dir.clear();
    BuildDir none = resolve_build_dir(r);
    EXPECT_TRUE(none.dir.empty());
    EXPECT_NE(none.missing.find("Run ksweep once on a full tree of Linux 6.12.8"),
              std::string::npos)
        << none.missing;
    EXPECT_NE(none.missing.find("--build-dir DIR"), std::string::npos) << none.missing;
}
