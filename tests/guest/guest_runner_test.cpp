// The host side of a validation boot that needs no QEMU: the command line it runs and the
// priority its timing-critical processes get.
#include "core/process.h"
#include "guest/qemu_runner.h"

#include <cerrno>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

namespace ksweep::validate {

using namespace ksweep::guest;
namespace {

bool has_pair(const std::vector<std::string>& args, const std::string& flag,
              const std::string& value) {
    for (size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == flag && args[i + 1] == value)
            return true;
    return false;
}

TEST(GuestRunnerTest, GuestCpuRunsAtAFixedInstructionRate) {
    GuestRunOptions o;
    o.kernel_image = "/boot/vmlinuz";
    o.initramfs = "/tmp/initrd";
    auto args = qemu_command(o, "/tmp/sock");
    // Without icount the guest's clock would count TCG's own slowness as driver time.
    EXPECT_TRUE(has_pair(args, "-icount", "shift=0"));
    EXPECT_TRUE(has_pair(args, "-accel", "tcg"));
    EXPECT_TRUE(has_pair(args, "-smp", "1"));
}

TEST(GuestRunnerTest, ChildStartsAtTheRequestedNiceness) {
    // Lowering the priority needs no privilege, so this holds for any user.
    ChildProcess child({"sleep", "5"}, "", 7);
    EXPECT_EQ(child.nice(), 7);
    child.terminate();
}

TEST(GuestRunnerTest, RaisedPriorityIsAppliedWhenPermitted) {
    ChildProcess child({"sleep", "5"}, "", -10);
    // Root (CI, the validation machines) gets it; anyone else keeps ksweep's own niceness.
    if (geteuid() == 0) {
        EXPECT_EQ(child.nice(), -10);
    } else {
        EXPECT_GE(child.nice(), 0);
    }
    child.terminate();
}

TEST(GuestRunnerTest, ChildWithoutANicenessKeepsOurs) {
    ChildProcess child({"sleep", "5"});
    errno = 0;
    int ours = getpriority(PRIO_PROCESS, 0);
    EXPECT_EQ(child.nice(), ours);
    child.terminate();
}

} // namespace
} // namespace ksweep::validate
