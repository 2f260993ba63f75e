// ksweep-tpmd as the QEMU runner uses it: started with its flags, "ready" on stdout, a VMM on
// the unix socket (and on the ivshmem socket for a chip with an interrupt line), and the stats
// file written when the VMM goes away or on SIGTERM.
#include "core/file_io.h"
#include "fake_vmm.h"
#include "ivshmem_client.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <sys/un.h>
#include <sys/wait.h>

namespace ksweep::device {
namespace {

namespace fs = std::filesystem;
using testing::FakeVmm;

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct TpmdTest : ::testing::Test {
    TempDir tmp{"ksweep-tpmd"};
    const fs::path dir = tmp.path();
    pid_t pid = -1;
    int out = -1, err = -1;

    void TearDown() override {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
        for (int fd : {out, err})
            if (fd >= 0)
                close(fd);
    }

    fs::path socket() const { return dir / "i2c.sock"; }
    fs::path stats() const { return dir / "stats.json"; }
    fs::path log() const { return dir / "tpmd.log"; }

    void spawn(std::vector<std::string> args) {
        int o[2], e[2];
        ASSERT_EQ(pipe(o), 0);
        ASSERT_EQ(pipe(e), 0);
        pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            dup2(o[1], 1);
            dup2(e[1], 2);
            std::vector<char*> argv{const_cast<char*>(KSWEEP_TPMD_PATH)};
            for (auto& a : args)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(KSWEEP_TPMD_PATH, argv.data());
            _exit(127);
        }
        close(o[1]);
        close(e[1]);
        out = o[0];
        err = e[0];
    }
    static std::string registry() { return std::string(KSWEEP_SOURCE_DIR) + "/qemu/devices.yaml"; }
    // The Nuvoton device of the registry, with its default profile.
    void spawn_default() {
        spawn({"--registry", registry(), "--device", "tpm_i2c_nuvoton", "--socket", socket(),
               "--state-dir", dir / "state", "--stats", stats(), "--log", log()});
    }
    std::string read_all(int fd) {
        std::string s;
        char buf[512];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            s.append(buf, n);
        return s;
    }
    std::string read_line(int fd) {
        std::string s;
        char c;
        while (read(fd, &c, 1) == 1 && c != '\n')
            s += c;
        return s;
    }
    int wait_exit() {
        int status = 0;
        waitpid(pid, &status, 0);
        pid = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    // What QEMU and the driver's probe do: connect, start the queue, read the id register
    // (first 3 bytes returned); then stop the back end the way the runner does.
    std::vector<uint8_t> probe_then_sigterm(uint16_t address = nuvoton::kDefaultAddress,
                                            uint8_t reg = nuvoton::kRegVidDidRid, int bytes = 3) {
        std::vector<uint8_t> id;
        int fd = connect_socket();
        {
            FakeVmm vmm(fd);
            vmm.start_device();
            vmm.post_id_read(address, reg);
            vmm.kick_queue();
            EXPECT_TRUE(vmm.wait_for_call());
            for (int i = 0; i < bytes; ++i)
                id.push_back(vmm.get<uint8_t>(FakeVmm::kRingFile + FakeVmm::kBuf + 0xc0 + i));
            kill(pid, SIGTERM);
            EXPECT_EQ(wait_exit(), 0);
        }
        close(fd);
        return id;
    }
    int connect_socket(const fs::path& path = {}) {
        int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strcpy(addr.sun_path, (path.empty() ? socket() : path).c_str());
        EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        return fd;
    }
};

TEST_F(TpmdTest, ServesTheProbeAndWritesStatsOnSigterm) {
    spawn_default();
    ASSERT_EQ(read_line(out), "ready");
    std::vector<uint8_t> id = probe_then_sigterm();
    EXPECT_EQ(id, (std::vector<uint8_t>{0x50, 0x10, 0xfe}));
    std::string json = slurp(stats());
    EXPECT_NE(json.find("\"profile\": \"nuvoton_npct_default\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"virtio_requests\": 2"), std::string::npos) << json;
    EXPECT_NE(json.find("\"violations\": 0"), std::string::npos) << json;
    std::string text = slurp(log());
    EXPECT_NE(text.find("tpm_i2c_nuvoton: model nuvoton, TPM 2.0 at 0x2e"), std::string::npos)
        << text;
    EXPECT_NE(text.find("stopping on signal"), std::string::npos) << text;
    EXPECT_NE(text.find("stats: commands=0"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(socket())) << "the socket is removed on exit";
}

// A device file's chip: no libtpms, the table model at the file's address.
TEST_F(TpmdTest, ServesADeviceFileWithTheTableModel) {
    spawn({"--registry", registry(), "--device", "ak8974", "--socket", socket(), "--state-dir",
           dir / "state", "--stats", stats(), "--log", log()});
    ASSERT_EQ(read_line(out), "ready");
    // WHOAMI, then the first bytes of DATA_X (little-endian 0x0123).
    EXPECT_EQ(probe_then_sigterm(0x0e, 0x0f, 3), (std::vector<uint8_t>{0x48, 0x23, 0x01}));
    std::string json = slurp(stats());
    EXPECT_NE(json.find("\"profile\": \"ak8974_default\""), std::string::npos) << json;
    EXPECT_NE(json.find("\"messages\": 2"), std::string::npos) << json;
    EXPECT_NE(json.find("\"write_idle_violations\": 0"), std::string::npos) << json;
    std::string text = slurp(log());
    EXPECT_NE(text.find("ak8974: model table at 0x0e"), std::string::npos) << text;
    EXPECT_NE(text.find("stats: messages=2 violations=0"), std::string::npos) << text;
    EXPECT_FALSE(fs::exists(dir / "state")) << "no TPM state for a device file";
}

// The counters in-band at 0x7f, for a guest whose host cannot read the stats file (LAVA).
TEST_F(TpmdTest, CountersAreReadableAtTheReservedAddress) {
    spawn_default();
    ASSERT_EQ(read_line(out), "ready");
    std::vector<uint8_t> text = probe_then_sigterm(0x7f, 0x00, 4);
    EXPECT_EQ(std::string(text.begin(), text.end()), "comm") << "commands=0 ...";
}

TEST_F(TpmdTest, ExitsWithStatsWhenTheVmmDisconnects) {
    spawn_default();
    ASSERT_EQ(read_line(out), "ready");
    close(connect_socket());
    EXPECT_EQ(wait_exit(), 0);
    EXPECT_TRUE(fs::exists(stats()));
    EXPECT_NE(slurp(log()).find("vhost-user: disconnected"), std::string::npos);
}

TEST_F(TpmdTest, ServesTheI2cBusAndTheInterruptLineAtOnce) {
    fs::path irq_socket = dir / "irq.sock";
    spawn({"--registry", registry(), "--device", "tpm_tis_i2c_cr50", "--socket", socket(),
           "--irq-socket", irq_socket, "--state-dir", dir / "state", "--stats", stats(), "--log",
           log()});
    ASSERT_EQ(read_line(out), "ready");
    // QEMU connects both chardevs, then realizes one device after the other: the doorbell's
    // setup arrives while the I2C connection is open and idle.
    int i2c = connect_socket();
    int irq = connect_socket(irq_socket);
    std::vector<std::pair<int64_t, int>> setup;
    for (int i = 0; i < 4; ++i)
        setup.push_back(testing::recv_ivshmem_message(irq));
    ASSERT_EQ(setup.size(), 4u);
    EXPECT_EQ(setup[0], (std::pair<int64_t, int>(0, -1))) << "protocol version 0";
    EXPECT_EQ(setup[1], (std::pair<int64_t, int>(0, -1))) << "the client's ID";
    EXPECT_EQ(setup[2].first, -1) << "the shared memory";
    EXPECT_EQ(setup[3].first, 0) << "the client's vector 0";
    EXPECT_GE(setup[3].second, 0);
    for (const auto& [value, fd] : setup)
        if (fd >= 0)
            close(fd);
    close(irq);
    close(i2c);
    EXPECT_EQ(wait_exit(), 0) << "QEMU gone: both connections closed";
    std::string text = slurp(log());
    EXPECT_NE(text.find("model cr50, TPM 2.0 at 0x50, interrupt on the ivshmem doorbell"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("ivshmem: disconnected"), std::string::npos) << text;
    EXPECT_NE(slurp(stats()).find("\"interrupt_pulses\": 0"), std::string::npos);
}

TEST_F(TpmdTest, AnInterruptLineForAChipWithoutOneIsRefused) {
    spawn({"--registry", registry(), "--device", "tpm_i2c_nuvoton", "--socket", socket(),
           "--irq-socket", dir / "irq.sock", "--state-dir", dir / "state", "--stats", stats()});
    EXPECT_EQ(wait_exit(), 2);
    EXPECT_NE(read_all(err).find("model nuvoton has no interrupt output"), std::string::npos);
    EXPECT_EQ(read_all(out), "") << "never ready";
}

TEST_F(TpmdTest, TraceHasEveryMessageWithItsTimeAndBytes) {
    fs::path trace = dir / "i2c-trace.log";
    spawn({"--registry", registry(), "--device", "tpm_i2c_nuvoton", "--socket", socket(),
           "--profile", std::string(KSWEEP_SOURCE_DIR) + "/qemu/profiles/nuvoton_npct_default.yaml",
           "--state-dir", dir / "state", "--stats", stats(), "--trace", trace});
    ASSERT_EQ(read_line(out), "ready");
    probe_then_sigterm();
    // The probe: the register byte written, then the vendor/device id read back.
    std::string text = slurp(trace);
    std::regex probe(R"(\[ *\d+\.\d{6}\] W 0x2e 60\n\[ *\d+\.\d{6}\] R 0x2e 50 10 fe \w\w\n)");
    EXPECT_TRUE(std::regex_search(text, probe)) << text;
}

TEST_F(TpmdTest, BrokenProfileIsReportedWithItsLocation) {
    fs::path profile = dir / "bad.yaml";
    std::ofstream(profile) << "name: bad\ncommands:\n  default_us: 1\n  TPM2_Bogus: 4\n";
    spawn({"--registry", registry(), "--device", "tpm_i2c_nuvoton", "--socket", socket(),
           "--profile", profile, "--state-dir", dir / "state", "--stats", stats()});
    EXPECT_EQ(wait_exit(), 2);
    std::string message = read_all(err);
    EXPECT_NE(message.find(profile.string() + ":4:3:"), std::string::npos) << message;
    EXPECT_EQ(read_all(out), "") << "never ready";
}

TEST_F(TpmdTest, BrokenRegistryIsReportedWithItsLocation) {
    fs::path bad = dir / "devices.yaml";
    std::ofstream(bad) << "devices:\n  tpm_x:\n    modle: nuvoton\n";
    spawn({"--registry", bad, "--device", "tpm_x", "--socket", socket(), "--state-dir",
           dir / "state", "--stats", stats()});
    EXPECT_EQ(wait_exit(), 2);
    std::string message = read_all(err);
    EXPECT_NE(message.find(bad.string() + ":3:5: unknown key 'modle'"), std::string::npos)
        << message;
}

TEST_F(TpmdTest, UnknownDeviceNamesTheOnesThereAre) {
    spawn({"--registry", registry(), "--device", "tpm_atmel", "--socket", socket(), "--state-dir",
           dir / "state", "--stats", stats()});
    EXPECT_EQ(wait_exit(), 2);
    std::string message = read_all(err);
    EXPECT_NE(message.find("no device 'tpm_atmel'"), std::string::npos) << message;
    EXPECT_NE(message.find("tpm_i2c_nuvoton"), std::string::npos) << message;
}

TEST_F(TpmdTest, MissingFlagsAreAUsageError) {
    spawn({"--socket", socket()});
    EXPECT_EQ(wait_exit(), 2);
    EXPECT_NE(read_all(err).find("usage: ksweep-tpmd"), std::string::npos);
}

} // namespace
} // namespace ksweep::device
