// KbuildFlags on small kbuild files written here into a temporary tree: which Makefile builds a
// file, ccflags-y, composite objects, subdir-ccflags-y, CFLAGS_<object>, make's line syntax,
// what cannot be expanded, the per-directory cache, and how CompileFlags uses it.
#include "core/file_io.h"
#include "kbuild/kbuild_flags.h"
#include "rewrite/compile_flags.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <thread>

namespace fs = std::filesystem;

namespace ksweep {

using namespace ksweep::kbuild;
namespace {

class KbuildFlagsTest : public ::testing::Test {
  protected:
    void write(const std::string& rel, const std::string& text) {
        fs::path p = dir_.path() / rel;
        fs::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
    }
    std::string tree() const { return dir_.path().string(); }
    std::string at(const std::string& rel) const { return (dir_.path() / rel).string(); }

    TempDir dir_{"ksweep-kbuild"};
};

using Flags = std::vector<std::string>;

TEST_F(KbuildFlagsTest, CcflagsOfTheFilesDirectory) {
    write("drivers/foo/Makefile", "ccflags-y += -I$(srctree)/$(src)/include -DFOO_LEVEL=2\n"
                                  "ccflags-y += -I$(srctree)/include/foo -UFOO_DEBUG\n"
                                  "ccflags-y += -include $(srctree)/$(src)/foo_first.h\n"
                                  "asflags-y += -DASM_ONLY\n"
                                  "obj-$(CONFIG_FOO) += foo.o\n");
    write("drivers/foo/foo_first.h", "\n");
    KbuildFlags kbuild(tree());
    EXPECT_EQ(kbuild.owner("drivers/foo/foo.c"), "drivers/foo");
    EXPECT_EQ(kbuild.for_file("drivers/foo/foo.c"),
              (Flags{"-I" + at("drivers/foo/include"), "-DFOO_LEVEL=2", "-I" + at("include/foo"),
                     "-UFOO_DEBUG", "-include", at("drivers/foo/foo_first.h")}));
    // Headers of the directory get its flags too.
    EXPECT_EQ(kbuild.for_file("drivers/foo/foo.h"), kbuild.for_file("drivers/foo/foo.c"));
    // No Makefile builds anything here: nothing to add.
    EXPECT_EQ(kbuild.owner("include/linux/bar.h"), std::nullopt);
    EXPECT_TRUE(kbuild.for_file("include/linux/bar.h").empty());
}

TEST_F(KbuildFlagsTest, CompositeObjectInAParentDirectory) {
    // Like a driver whose pf/ and vf/ sources are linked from the parent's Makefile.
    write("drivers/net/bar/Makefile",
          "ccflags-y := -I$(srctree)/$(src) -I$(srctree)/drivers/net/bar/common\n"
          "obj-$(CONFIG_BAR) += bar.o\n"
          "bar-objs = bar_core.o pf/bar_main.o \\\n"
          "\tpf/bar_mbx.o common/bar_cmd.o\n"
          "obj-$(CONFIG_BAR_VF) += barvf.o\n"
          "barvf-y := vf/bar_vf.o\n");
    // A subdirectory Makefile that only adds its own objects does not take pf/'s files.
    write("drivers/net/Makefile", "obj-$(CONFIG_BAR) += bar/\n");
    KbuildFlags kbuild(tree());
    const Flags expected{"-I" + at("drivers/net/bar"), "-I" + at("drivers/net/bar/common")};
    for (const char* file : {"drivers/net/bar/pf/bar_main.c", "drivers/net/bar/vf/bar_vf.c",
                             "drivers/net/bar/common/bar_cmd.c", "drivers/net/bar/bar_core.c",
                             "drivers/net/bar/pf/bar_main.h"}) {
        EXPECT_EQ(kbuild.owner(file), "drivers/net/bar") << file;
        EXPECT_EQ(kbuild.for_file(file), expected) << file;
    }
    // A file two levels down named by a grandparent list.
    write("drivers/baz/Makefile", "baz-y += hw/v2/baz_hw.o\nccflags-y += -DBAZ\n");
    KbuildFlags again(tree());
    EXPECT_EQ(again.owner("drivers/baz/hw/v2/baz_hw.c"), "drivers/baz");
    EXPECT_EQ(again.for_file("drivers/baz/hw/v2/baz_hw.c"), Flags{"-DBAZ"});
}

TEST_F(KbuildFlagsTest, SubdirCcflagsOfAncestorsComeFirst) {
    write("Kbuild", "subdir-ccflags-y += -DFROM_ROOT_KBUILD\n");
    write("Makefile", "subdir-ccflags-y += -DFROM_TOP_MAKEFILE\n"); // not a kbuild file
    write("drivers/Makefile", "obj-y += gpu/\nsubdir-ccflags-y += -DFROM_DRIVERS\n");
    write("drivers/gpu/Makefile", "subdir-ccflags-$(CONFIG_GPU) += -I$(srctree)/$(src)/shared\n"
                                  "ccflags-y += -DONLY_GPU_ITSELF\n"
                                  "obj-y += card/\n");
    write("drivers/gpu/card/Makefile", "ccflags-y += -DCARD\nsubdir-ccflags-y += -DCARD_TREE\n"
                                       "obj-m += card.o\n");
    KbuildFlags kbuild(tree());
    EXPECT_EQ(kbuild.for_file("drivers/gpu/card/card.c"),
              (Flags{"-DFROM_ROOT_KBUILD", "-DFROM_DRIVERS", "-I" + at("drivers/gpu/shared"),
                     "-DCARD_TREE", "-DCARD"}));
}

TEST_F(KbuildFlagsTest, PerObjectCflags) {
    write("drivers/qux/Makefile", "obj-y += qux.o other.o\nqux-y := main.o sub/part.o\n"
                                  "CFLAGS_main.o := -DONLY_MAIN -Wno-override-init\n"
                                  "CFLAGS_sub/part.o = -I$(src)/sub/inc\n"
                                  "CFLAGS_REMOVE_other.o = -DREMOVED\n");
    KbuildFlags kbuild(tree());
    EXPECT_EQ(kbuild.for_file("drivers/qux/main.c"), Flags{"-DONLY_MAIN"});
    // $(src) is tree-relative and make runs from the tree root.
    EXPECT_EQ(kbuild.for_file("drivers/qux/sub/part.c"), Flags{"-I" + at("drivers/qux/sub/inc")});
    EXPECT_TRUE(kbuild.for_file("drivers/qux/other.c").empty());
}

TEST_F(KbuildFlagsTest, MakeLineSyntax) {
    write("drivers/syn/Makefile",
          "# ccflags-y += -DCOMMENTED_OUT \\\n"
          "   -DSTILL_THE_COMMENT\n"
          "ccflags-y += -DFIRST \\\n"
          "\t-DSECOND   \\\n"
          "        -DTHIRD # a comment after flags\n"
          "LOCAL_DIR := $(srctree)/$(src)/..\n"
          "LATER = $(LOCAL_DIR)/later\n"
          "ccflags-y += -I$(LOCAL_DIR)/common -I$(LATER)\n"
          "ccflags-y += -DNAME='\"syn\"' -D'syn_fmt(x)=\"syn: \" x' -DHASH=\\#\n"
          "EXTRA_CFLAGS += -DOLD_SPELLING\n"
          "$(obj)/table.h: $(src)/gen.sh\n"
          "\tccflags-y += -DIN_A_RECIPE\n"
          "define SOME_MACRO\n"
          "ccflags-y += -DIN_A_DEFINE\n"
          "endef\n"
          "ifdef CONFIG_SYN_EXTRA\n"
          "\tccflags-y += -DEXTRA\n"
          "else\n"
          "\tccflags-y += -DNO_EXTRA\n"
          "endif\n"
          "ifeq ($(CONFIG_SYN_MODE),m)\n"
          "ccflags-y += -DMODULE_ONLY\n"
          "endif\n"
          "ifneq ($(CONFIG_SYN_DEBUG),)\n"
          "ccflags-y += -DSYN_DEBUG\n"
          "endif\n"
          "obj-y += syn.o\n");
    KbuildFlags kbuild(tree());
    EXPECT_EQ(kbuild.for_file("drivers/syn/syn.c"),
              (Flags{"-DFIRST", "-DSECOND", "-DTHIRD", "-I" + at("drivers/common"),
                     "-I" + at("drivers/later"), "-DNAME=\"syn\"", "-Dsyn_fmt(x)=\"syn: \" x",
                     "-DHASH=#", "-DEXTRA", "-DSYN_DEBUG", "-DOLD_SPELLING"}));
}

TEST_F(KbuildFlagsTest, WhatCannotBeExpandedIsLeftOut) {
    const std::string unknowns =
        "ccflags-y += -I$(objtree)/$(obj)/generated -DKEEP_ME\n"
        "ccflags-y += -DOPT=$(call cc-option,-mfoo) $(call cc-disable-warning, unused)\n"
        "ccflags-y += -I $(NOT_SET_HERE)/inc -include $(ARCH_HEADER) -DKEEP_TOO\n"
        "ccflags-y += -DWIDTH=$(CONFIG_UNK_WIDTH) -I$(srctree)/$(src)\n"
        "ifeq ($(ARCH),arm)\n"
        "ccflags-y += -DONLY_ON_ARM\n"
        "else\n"
        "ccflags-y += -DNOT_ON_ARM\n"
        "endif\n"
        "ifeq ($(CONFIG_UNK_SIZE),64)\n" // a CONFIG_ value other than y/m: not guessed
        "ccflags-y += -DSIZE_64\n"
        "endif\n"
        "obj-y += unk.o\n"
        // a generated header the source tree does not have
        "CFLAGS_unk.o := -include $(obj)/generated_at_build_time.h\n";
    write("drivers/unk/Makefile", unknowns);
    // An assignment in a branch that cannot be decided leaves the variable unknown as a whole.
    write("drivers/unk2/Makefile", unknowns + "ifdef KBUILD_EXTMOD\n"
                                              "ccflags-y := -DOUT_OF_TREE\n"
                                              "endif\n"
                                              "obj-y += unk2.o\n");
    KbuildFlags kbuild(tree());
    EXPECT_EQ(kbuild.for_file("drivers/unk/unk.c"),
              (Flags{"-DKEEP_ME", "-DKEEP_TOO", "-I" + at("drivers/unk")}));
    EXPECT_EQ(kbuild.for_file("drivers/unk2/unk2.c"), Flags{});
}

TEST_F(KbuildFlagsTest, IncludedMakefilesCountAsTheIncluders) {
    write("drivers/inc/Makefile", "ccflags-y += -I$(srctree)/$(src)\n"
                                  "obj-y += inc.o\n"
                                  "include $(src)/part/Makefile\n"
                                  "-include $(src)/missing/Makefile\n"
                                  "inc-y += $(PART_OBJS)\n");
    write("drivers/inc/part/Makefile", "PART_OBJS := part/one.o part/two.o\n"
                                       "ccflags-y += -DWITH_PART\n");
    KbuildFlags kbuild(tree());
    EXPECT_EQ(kbuild.owner("drivers/inc/part/one.c"), "drivers/inc");
    EXPECT_EQ(kbuild.for_file("drivers/inc/part/two.c"),
              (Flags{"-I" + at("drivers/inc"), "-DWITH_PART"}));
}

TEST_F(KbuildFlagsTest, EachMakefileIsReadOnceAcrossThreads) {
    write("Kbuild", "obj-y += drivers/\n");
    write("drivers/Makefile", "obj-y += a/\nsubdir-ccflags-y += -DDRIVERS\n");
    write("drivers/a/Makefile", "obj-y += a.o\na-y := x/one.o x/two.o\nccflags-y += -DA\n");
    KbuildFlags kbuild(tree());
    const Flags expected{"-DDRIVERS", "-DA"};
    auto work = [&] {
        for (int i = 0; i < 50; ++i)
            for (const char* f :
                 {"drivers/a/x/one.c", "drivers/a/x/two.c", "drivers/a/a.c", "drivers/a/x/one.h"})
                EXPECT_EQ(kbuild.for_file(f), expected) << f;
    };
    std::thread other(work);
    work();
    other.join();
    EXPECT_EQ(kbuild.files_read(), 3u); // Kbuild, drivers/Makefile, drivers/a/Makefile
}

TEST_F(KbuildFlagsTest, CompileFlagsAddThemOnlyWhenSynthesizing) {
    write("drivers/foo/Makefile", "ccflags-y += -I$(srctree)/$(src)/include -DFOO_LEVEL=2\n"
                                  "obj-y += foo.o\n");
    {
        CompileFlags flags(tree(), "");
        auto args = flags.for_file("drivers/foo/foo.c");
        ASSERT_GE(args.size(), 2u);
        EXPECT_EQ(args[args.size() - 2], "-I" + at("drivers/foo/include"));
        EXPECT_EQ(args.back(), "-DFOO_LEVEL=2");
    }
    // A compile_commands.json already holds the Makefile's flags: nothing is added to it.
    write("compile_commands.json",
          "[{\"directory\": \"" + tree() + "\", \"file\": \"" + at("drivers/foo/foo.c") +
              "\", \"arguments\": [\"gcc\", \"-DFROM_DATABASE\", \"-c\", \"-o\", "
              "\"drivers/foo/foo.o\", \"" +
              at("drivers/foo/foo.c") + "\"]}]");
    CompileFlags flags(tree(), "");
    auto args = flags.for_file("drivers/foo/foo.c");
    EXPECT_NE(std::find(args.begin(), args.end(), "-DFROM_DATABASE"), args.end());
    EXPECT_EQ(std::find(args.begin(), args.end(), "-DFOO_LEVEL=2"), args.end());
}

} // namespace
} // namespace ksweep
