// The host's reading of the validation guest's console: phases, extend records, PCR values,
// errors, and the noise a real serial console mixes in.
#include "guest/guest_output.h"

#include <gtest/gtest.h>

namespace ksweep::validate {

using namespace ksweep::guest;
namespace {

const char* kZero = "0000000000000000000000000000000000000000000000000000000000000000";
const char* kFinal = "5f1a208763b558a008df779cf430b2f10ec3cab76375cfbecad07b483420b244";

std::string complete_run() {
    return std::string("SeaBIOS (version 1.16.2)\r\n"
                       "\x1b[?7l\x1b[2Jksweep-guest: phase init kernel=6.1.0-0-test\r\n"
                       "ksweep-guest: phase modules\r\n"
                       "ksweep-guest: module virtio_ring.ko\r\n"
                       "ksweep-guest: module tpm_i2c_nuvoton.ko\r\n"
                       "ksweep-guest: phase probe adapter=i2c-0 device=tpm2_i2c_nuvoton\r\n"
                       "ksweep-guest: phase wait-tpm0\r\n"
                       "ksweep-guest: tpm0 2\r\n"
                       "ksweep-guest: phase extend n=3\r\n"
                       "ksweep-extend: begin n=3\r\n"
                       "ksweep-extend: reset rc=0x0\r\n"
                       "ksweep-extend: pcr16-initial ") +
           kZero +
           "\r\n"
           "ksweep-extend: extend i=0 ns=1500000 rc=0x0\r\n"
           "[    3.1] some kernel message\r\n"
           "ksweep-extend: extend i=1 ns=2500000 rc=0x0\r\n"
           "ksweep-extend: extend i=2 ns=1000000 rc=0x0\r\n"
           "ksweep-extend: pcr16-final " +
           kFinal +
           "\r\n"
           "ksweep-extend: end ok=3 failed=0\r\n"
           "ksweep-guest: dmesg [    2.5] tpm_i2c_nuvoton 0-002e: VID: 1050\r\n"
           "ksweep-guest: phase poweroff\r\n"
           "[    9.9] reboot: Power down\r\n";
}

TEST(GuestOutput, ReadsACompleteRun) {
    GuestReport r = parse_guest_output(complete_run());
    EXPECT_TRUE(r.complete());
    EXPECT_TRUE(r.powered_off);
    ASSERT_EQ(r.samples.size(), 3u);
    EXPECT_EQ(r.samples[1].index, 1u);
    EXPECT_EQ(r.samples[1].ns, 2500000);
    EXPECT_EQ(r.samples[1].rc, 0u);
    EXPECT_EQ(r.requested, 3u);
    EXPECT_EQ(r.tpm_version, 2);
    EXPECT_EQ(r.reset_rc, 0u);
    ASSERT_TRUE(r.pcr_initial && r.pcr_final);
    EXPECT_EQ(to_hex(*r.pcr_initial), kZero);
    EXPECT_EQ(to_hex(*r.pcr_final), kFinal);
    EXPECT_EQ(r.modules, (std::vector<std::string>{"virtio_ring.ko", "tpm_i2c_nuvoton.ko"}));
    ASSERT_EQ(r.dmesg.size(), 1u);
    EXPECT_NE(r.dmesg[0].find("VID: 1050"), std::string::npos);
    // The escape codes before the first phase do not hide it; '\r' is not part of a phase.
    EXPECT_EQ(r.phases.front(), "init kernel=6.1.0-0-test");
    EXPECT_EQ(r.last_phase(), "poweroff");
    EXPECT_TRUE(r.errors.empty());
}

TEST(GuestOutput, AFailedExtendMakesTheRunIncomplete) {
    std::string text = complete_run();
    text.replace(text.find("i=1 ns=2500000 rc=0x0"), 21, "i=1 ns=2500000 rc=0x922");
    GuestReport r = parse_guest_output(text);
    EXPECT_FALSE(r.complete());
    EXPECT_EQ(r.failed_extends(), 1u);
    EXPECT_EQ(r.samples[1].rc, 0x922u);
}

TEST(GuestOutput, AGuestKilledHalfWayKeepsWhatItPrinted) {
    std::string text = complete_run();
    text.resize(text.find("ksweep-extend: extend i=2"));
    GuestReport r = parse_guest_output(text);
    EXPECT_FALSE(r.complete());
    EXPECT_FALSE(r.powered_off);
    EXPECT_EQ(r.samples.size(), 2u);
    EXPECT_EQ(r.last_phase(), "extend n=3");
}

TEST(GuestOutput, GuestErrorsAreCollected) {
    GuestReport r = parse_guest_output(
        "ksweep-guest: phase wait-tpm0\n"
        "ksweep-guest: error /dev/tpm0 did not appear within 20s (probe failed?)\n"
        "ksweep-extend: error open /dev/tpm0: No such file or directory\n");
    ASSERT_EQ(r.errors.size(), 2u);
    EXPECT_EQ(r.errors[0], "/dev/tpm0 did not appear within 20s (probe failed?)");
    EXPECT_FALSE(r.complete());
    EXPECT_EQ(r.last_phase(), "wait-tpm0");
}

TEST(GuestOutput, NoOutputFromInitSaysSo) {
    GuestReport r = parse_guest_output("SeaBIOS\nKernel panic - not syncing: No working init\n");
    EXPECT_TRUE(r.phases.empty());
    EXPECT_NE(r.last_phase().find("init never spoke"), std::string::npos);
}

TEST(GuestOutput, GarbledRecordsAreErrorsNotSamples) {
    GuestReport r = parse_guest_output("ksweep-extend: begin n=2\n"
                                       "ksweep-extend: extend i=0 ns=12x rc=0x0\n"
                                       "ksweep-extend: extend i=1 rc=0x0\n"
                                       "ksweep-extend: pcr16-final 1234\n");
    EXPECT_TRUE(r.samples.empty());
    EXPECT_EQ(r.errors.size(), 2u);
    EXPECT_FALSE(r.pcr_final); // neither a SHA-1 nor a SHA-256 digest
}

// A TPM 1.2 run (tpm_extend --tpm 1.2) prints SHA-1 PCR values.
TEST(GuestOutput, ReadsTheSha1PcrOfATpm12Run) {
    GuestReport r = parse_guest_output("ksweep-extend: pcr16-initial " + std::string(40, '0') +
                                       "\nksweep-extend: pcr16-final " +
                                       "40acc0d390dff6766cee862ff7577f612a22baa5\n");
    ASSERT_TRUE(r.pcr_initial && r.pcr_final);
    EXPECT_EQ(r.pcr_initial->size(), 20u);
    EXPECT_EQ(to_hex(*r.pcr_final), "40acc0d390dff6766cee862ff7577f612a22baa5");
}

TEST(GuestOutput, AKernelMessageBeforeOurTextOnTheSameLine) {
    GuestOutputParser parser;
    EXPECT_TRUE(
        parser.feed_line("[    4.2] random: crng initksweep-extend: extend i=7 ns=42 rc=0x0"));
    EXPECT_FALSE(parser.feed_line("[    4.3] unrelated"));
    ASSERT_EQ(parser.report().samples.size(), 1u);
    EXPECT_EQ(parser.report().samples[0].index, 7u);
    EXPECT_EQ(parser.report().samples[0].ns, 42);
}

// A device file's run: qemu/op/ksweep_op.c's records, the values it read, and what the kernel
// said while the operations ran.
std::string operation_run(const char* second) {
    return std::string("ksweep-guest: phase init kernel=6.1.0-0-test\r\n"
                       "ksweep-guest: module regmap-i2c.ko\r\n"
                       "ksweep-guest: module ak8974.ko\r\n"
                       "ksweep-guest: client 0-000e\r\n"
                       "ksweep-guest: phase operation read n=2\r\n"
                       "ksweep-op: begin n=2 op=read\r\n"
                       "ksweep-op: op i=0 ns=3400000 rc=0x0 value=291\r\n") +
           second +
           "ksweep-op: end ok=1 failed=1\r\n"
           "ksweep-guest: opmsg [    5.1] random: crng init done\r\n"
           "ksweep-guest: opmsg [    5.2] ak8974 0-000e: timeout waiting for DRDY\r\n"
           "ksweep-guest: phase poweroff\r\n";
}

TEST(GuestOutput, ReadsADeviceFilesOperationsAndTheDriversOwnError) {
    GuestReport r =
        parse_guest_output(operation_run("ksweep-op: op i=1 ns=6900000 rc=0x6e value=-\r\n"));
    EXPECT_TRUE(r.operation);
    EXPECT_EQ(r.client, "0-000e");
    ASSERT_EQ(r.samples.size(), 2u);
    EXPECT_EQ(r.values, (std::vector<std::string>{"291", "-"}));
    EXPECT_EQ(r.samples[1].rc, 110u);
    EXPECT_FALSE(r.complete()) << "an operation failed";
    // One line: the errno and the driver's own words (its line names the client).
    EXPECT_EQ(first_operation_failure(r),
              "operation 1 failed: errno 110 (Connection timed out); the kernel: ak8974 "
              "0-000e: timeout waiting for DRDY");
}

TEST(GuestOutput, ACompleteOperationRunNeedsNoPcr) {
    std::string text = operation_run("ksweep-op: op i=1 ns=3500000 rc=0x0 value=291\r\n");
    text.replace(text.find("ok=1 failed=1"), 13, "ok=2 failed=0");
    GuestReport r = parse_guest_output(text);
    EXPECT_TRUE(r.complete());
    EXPECT_EQ(first_operation_failure(r), "");
}

} // namespace
} // namespace ksweep::validate
