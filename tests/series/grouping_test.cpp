// One patch per driver: modules as kbuild builds them, from the Makefiles.
#include "series/grouping.h"
#include "test_repo.h"

#include <gtest/gtest.h>

using namespace ksweep::series;
using namespace ksweep::test;

namespace {

class GroupingTest : public ::testing::Test {
  protected:
    void SetUp() override {
        tree = tmp.path();
        write_file(tree + "/drivers/char/tpm/Makefile",
                   "obj-$(CONFIG_TCG_TPM) += tpm.o\n"
                   "tpm-y := tpm-chip.o \\\n\ttpm-interface.o # core\n"
                   "tpm-$(CONFIG_ACPI) += eventlog/acpi.o\n"
                   "obj-$(CONFIG_TCG_NSC) += tpm_nsc.o\n"
                   "obj-$(CONFIG_TCG_ATMEL) += tpm_atmel.o\n"
                   "obj-$(CONFIG_TCG_TIS_ST33ZP24) += st33zp24/\n");
        write_file(tree + "/drivers/char/tpm/st33zp24/Makefile",
                   "tpm_st33zp24-objs = st33zp24.o\n"
                   "obj-$(CONFIG_TCG_TIS_ST33ZP24) += tpm_st33zp24.o\n"
                   "tpm_st33zp24_i2c-objs = i2c.o\n"
                   "obj-$(CONFIG_TCG_TIS_ST33ZP24_I2C) += tpm_st33zp24_i2c.o\n");
        write_file(tree + "/drivers/misc/one/Kbuild", "obj-m += one.o\none-y := a.o b.o\n");
        write_file(tree + "/drivers/misc/one/Makefile", "obj-y += ignored.o\n");
        for (const char* f : {"drivers/char/tpm/tpm_atmel.c", "drivers/char/tpm/tpm_atmel.h",
                              "drivers/misc/one/a.c"})
            write_file(tree + "/" + f, "\n");
    }
    TempDir tmp;
    std::string tree;
};

TEST_F(GroupingTest, ModuleOfReadsObjAndCompositeLines) {
    auto mod = [&](const std::string& f) {
        auto m = module_of(tree, f);
        return m ? m->dir + ":" + m->name : std::string("none");
    };
    EXPECT_EQ(mod("drivers/char/tpm/tpm-chip.c"), "drivers/char/tpm:tpm");
    EXPECT_EQ(mod("drivers/char/tpm/tpm-interface.c"), "drivers/char/tpm:tpm"); // continued line
    EXPECT_EQ(mod("drivers/char/tpm/eventlog/acpi.c"), "drivers/char/tpm:tpm"); // from above
    EXPECT_EQ(mod("drivers/char/tpm/tpm_nsc.c"), "drivers/char/tpm:tpm_nsc");
    EXPECT_EQ(mod("drivers/char/tpm/st33zp24/st33zp24.c"),
              "drivers/char/tpm/st33zp24:tpm_st33zp24");
    EXPECT_EQ(mod("drivers/char/tpm/st33zp24/i2c.c"), "drivers/char/tpm/st33zp24:tpm_st33zp24_i2c");
    EXPECT_EQ(mod("drivers/char/tpm/tpm_atmel.h"), "drivers/char/tpm:tpm_atmel"); // beside its .c
    EXPECT_EQ(mod("drivers/char/tpm/tpm.h"), "none");                 // several modules, no tpm.c
    EXPECT_EQ(mod("drivers/misc/one/b.c"), "drivers/misc/one:one");   // Kbuild wins
    EXPECT_EQ(mod("drivers/misc/one/one.h"), "drivers/misc/one:one"); // one-module directory
    EXPECT_EQ(mod("drivers/misc/one/ignored.c"), "none");
}

TEST_F(GroupingTest, CompositeModulesWithDashesInTheirNames) {
    // usb/host style: the module is xhci-hcd, its kind y or $(CONFIG_...), not "hcd-y".
    write_file(tree + "/drivers/usb/host/Makefile",
               "xhci-hcd-y := xhci.o xhci-mem.o\n"
               "xhci-hcd-$(CONFIG_USB_XHCI_DBGCAP) += xhci-dbgcap.o\n"
               "snd-soc-da7219-objs := da7219.o da7219-aad.o\n"
               "obj-$(CONFIG_USB_XHCI_HCD) += xhci-hcd.o\n"
               "obj-m += snd-soc-da7219.o\n");
    auto mod = [&](const std::string& f) {
        auto m = module_of(tree, f);
        return m ? m->name : std::string("none");
    };
    EXPECT_EQ(mod("drivers/usb/host/xhci-mem.c"), "xhci-hcd");
    EXPECT_EQ(mod("drivers/usb/host/xhci-dbgcap.c"), "xhci-hcd");
    EXPECT_EQ(mod("drivers/usb/host/da7219-aad.c"), "snd-soc-da7219");
}

TEST_F(GroupingTest, GroupsInOrderOfTheirFirstFile) {
    std::vector<std::string> files = {
        "drivers/char/tpm/tpm-chip.c",  "drivers/char/tpm/tpm-interface.c",
        "drivers/char/tpm/tpm.h",       "drivers/char/tpm/tpm_atmel.c",
        "drivers/char/tpm/tpm_atmel.h", "drivers/misc/one/a.c"};
    auto groups = group_files(tree, files, GroupBy::Driver, nullptr);
    ASSERT_EQ(groups.size(), 4u);
    EXPECT_EQ(groups[0].files, (std::vector<size_t>{0, 1}));
    EXPECT_EQ(groups[0].module, "tpm");
    EXPECT_EQ(groups[1].files, (std::vector<size_t>{2}));
    EXPECT_EQ(groups[2].files, (std::vector<size_t>{3, 4}));
    EXPECT_EQ(groups[3].module, "one");
    EXPECT_EQ(group_files(tree, files, GroupBy::File, nullptr).size(), 6u);
    EXPECT_EQ(group_files(tree, files, GroupBy::Dir, nullptr).size(), 2u);
    EXPECT_EQ(parse_group_by("maintainer"), GroupBy::Maintainer);
    EXPECT_EQ(parse_group_by("module"), std::nullopt);
}

} // namespace
