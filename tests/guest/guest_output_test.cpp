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

} // namespace
// init.sh counts the guest's HZ; the note judges it by the nearest HZ Kconfig offers.
TEST(GuestOutput, TheHzTheGuestCountedIsReadAndJudged) {
    GuestReport r = parse_guest_output("ksweep-guest: hz measured=216\n");
    ASSERT_TRUE(r.measured_hz);
    EXPECT_EQ(*r.measured_hz, 216);
    EXPECT_EQ(measured_hz_note(r, 250), ", the guest counted 216");
    EXPECT_EQ(measured_hz_note(r, 1000), ", but the guest counted 216 (HZ=250?)");
    r = parse_guest_output("ksweep-guest: hz measured=unknown (no /proc/timer_list)\n");
    EXPECT_FALSE(r.measured_hz);
    EXPECT_EQ(measured_hz_note(r, 250), ", not measured in the guest");
}

} // namespace ksweep::validate
