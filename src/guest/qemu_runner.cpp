#include "guest/qemu_runner.h"

#include "core/file_io.h"
#include "core/process.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sstream>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace ksweep::guest {

namespace {

constexpr auto kBackendStartTimeout = std::chrono::seconds(15);
constexpr auto kBackendGoneGrace = std::chrono::seconds(3);

// Unix socket paths are limited to 108 bytes; a deep --keep directory gets a short one in /tmp.
std::string socket_path(const fs::path& run_dir) {
    fs::path inside = run_dir / "tpm-i2c.sock";
    if (inside.string().size() < 100)
        return inside.string();
    return (make_temp_dir("ksweep-sock") / "tpm-i2c.sock").string();
}

// Feeds complete lines of `pending` to `on_line`, keeping a trailing partial line.
template <typename F> void split_lines(std::string& pending, F&& on_line) {
    size_t start = 0, end;
    while ((end = pending.find('\n', start)) != std::string::npos) {
        on_line(std::string_view(pending).substr(start, end - start));
        start = end + 1;
    }
    pending.erase(0, start);
}

// Waits for the back end's "ready" line; false if it exits or stays silent too long.
bool wait_until_ready(ChildProcess& backend, std::string& output) {
    auto deadline = Clock::now() + kBackendStartTimeout;
    while (Clock::now() < deadline) {
        std::istringstream lines(output);
        for (std::string line; std::getline(lines, line);)
            if (line.rfind("ready", 0) == 0)
                return true;
        if (backend.output_fd() < 0 || backend.poll_exit())
            return false;
        pollfd pfd{backend.output_fd(), POLLIN, 0};
        poll(&pfd, 1, 100);
        backend.read_available(output);
    }
    return false;
}

// The end of a log, for errors QEMU itself printed (a socket it could not connect to).
std::string last_lines(const std::string& text, size_t count) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    std::string tail;
    for (size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i)
        tail += "    " + lines[i] + "\n";
    return tail;
}

std::string where_logs_are(const GuestRunResult& r) {
    return "\n  console:  " + r.console_log + "\n  back end: " + r.backend_log +
           "\n  stats:    " + r.stats_path;
}

void judge(GuestRunResult& r, const GuestRunOptions& options) {
    const GuestReport& report = r.report;
    std::string errors;
    for (const auto& e : report.errors)
        errors += "\n  guest: " + e;
    const auto& spec = options.device.spec;
    if (!report.complete()) {
        r.outcome = GuestOutcome::guest_failed;
        std::string what = spec ? "operations" : "extends";
        r.message = "the guest stopped in phase '" + report.last_phase() + "' with " +
                    std::to_string(report.samples.size()) + "/" + std::to_string(options.extends) +
                    " " + what + " done, " + std::to_string(report.failed_extends()) + " failed";
        // The driver's own error in the same line: the first thing a reader needs.
        if (std::string failure = first_operation_failure(report); spec && !failure.empty())
            r.message += ": " + failure;
        r.message += errors;
        return;
    }
    if (spec) {
        r.values =
            check_values(report, spec->operation.expect, spec->operation.label(), spec->path);
        r.outcome = r.values->passed ? GuestOutcome::passed : GuestOutcome::value_mismatch;
        r.message = r.values->message;
        return;
    }
    const std::string& bank = options.device.benchmark.pcr_bank;
    size_t size = pcr_digest_size(bank);
    if (report.pcr_initial->size() != size || report.pcr_final->size() != size) {
        r.outcome = GuestOutcome::guest_failed;
        r.message = "the guest read a " + std::to_string(report.pcr_final->size()) +
                    "-byte PCR 16, but the " + bank + " bank the registry names has " +
                    std::to_string(size) + "-byte digests";
        return;
    }
    r.pcr = check_pcr(bank, *report.pcr_initial, *report.pcr_final,
                      static_cast<std::uint32_t>(report.samples.size()));
    r.outcome = r.pcr->passed ? GuestOutcome::passed : GuestOutcome::pcr_mismatch;
    r.message = r.pcr->message;
    if (!r.pcr->started_from_zero)
        r.message += " (PCR 16 was not zero after the reset; the chain started from its value)";
}

} // namespace

const char* to_string(GuestOutcome outcome) {
    switch (outcome) {
    case GuestOutcome::passed:
        return "passed";
    case GuestOutcome::backend_failed:
        return "back end failed";
    case GuestOutcome::timed_out:
        return "timed out";
    case GuestOutcome::guest_failed:
        return "guest failed";
    case GuestOutcome::pcr_mismatch:
        return "PCR mismatch";
    case GuestOutcome::value_mismatch:
        return "value mismatch";
    }
    return "?";
}

ValueCheck check_values(const GuestReport& report, const std::string& expected,
                        const std::string& what, const std::string& source) {
    ValueCheck c;
    c.expected = expected;
    c.checked = report.values.size();
    std::string first_wrong;
    for (size_t i = 0; i < report.values.size(); ++i) {
        if (report.values[i] == expected)
            ++c.matched;
        else if (first_wrong.empty())
            first_wrong = "operation " + std::to_string(i) + " read '" + report.values[i] + "'";
    }
    c.passed = c.checked > 0 && c.matched == c.checked;
    std::string counts = std::to_string(c.matched) + "/" + std::to_string(c.checked);
    c.message = c.passed
                    ? "values checked: " + counts + " " + what + " returned " + expected + ", as " +
                          source + " says"
                    : "value check failed: " + counts + " " + what + " returned " + expected +
                          " (" + source + ")" + (first_wrong.empty() ? "" : "; " + first_wrong);
    return c;
}

std::string guest_kernel_args(const device::DeviceEntry& device, std::uint32_t extends,
                              device::InterruptMode interrupt) {
    char address[8];
    std::snprintf(address, sizeof address, "0x%02x", device.i2c_address);
    std::string args = "ksweep.n=" + std::to_string(extends) +
                       " ksweep.device=" + device.i2c_device_id + " ksweep.addr=" + address;
    if (!device.spec)
        return args + " ksweep.tpm=" + device::to_string(device.tpm) +
               (interrupt == device::InterruptMode::wired ? " ksweep.irq=ivshmem" : "");
    const device::GuestOperation& op = device.spec->operation;
    bool rtc = op.kind == device::GuestOperation::Kind::rtc_set_time;
    args += std::string(" ksweep.op=") + (rtc ? "rtc-set-time" : "read") +
            " ksweep.target=" + op.target;
    return rtc ? args + " ksweep.arg=" + op.argument : args;
}

std::vector<std::string> qemu_command(const GuestRunOptions& o, const std::string& socket) {
    std::string memory = std::to_string(o.memory_mb);
    std::vector<std::string> args;
    auto add = [&](std::initializer_list<std::string> more) { args.insert(args.end(), more); };
    // TCG: KVM does not work on these machines (REFERENCE §5). No NIC: no iPXE ROM to wait for.
    add({o.qemu, "-accel", "tcg", "-m", memory, "-smp", "1"});
    auto clock = guest_clock_args();
    args.insert(args.end(), clock.begin(), clock.end());
    add({"-nographic", "-no-reboot", "-nic", "none"});
    add({"-kernel", o.kernel_image, "-initrd", o.initramfs});
    add({"-append",
         "console=ttyS0 quiet panic=-1 " + guest_kernel_args(o.device, o.extends, o.interrupt)});
    auto device = vhost_user_i2c_args(o.memory_mb, socket);
    args.insert(args.end(), device.begin(), device.end());
    if (o.interrupt == device::InterruptMode::wired) {
        auto irq = ivshmem_doorbell_args(irq_socket_beside(socket));
        args.insert(args.end(), irq.begin(), irq.end());
    }
    return args;
}

std::vector<std::string> guest_clock_args() {
    // Guest time under plain TCG counts the emulator's own slowness: every I2C transfer cost the
    // guest ~0.25 ms of emulated driver code, on top of the modelled bus time, in both variants.
    // With icount the virtual CPU retires one instruction per ns (a modest 1 GHz core), so the
    // driver's code costs what it would on hardware; while the guest sleeps or waits for the
    // device (sleep=on, the default) its clock runs at real time, the back end's time.
    return {"-icount", "shift=0"};
}

std::vector<std::string> vhost_user_i2c_args(int memory_mb, const std::string& socket) {
    // vhost-user needs guest memory the back end can map.
    std::string memory = std::to_string(memory_mb);
    return {"-object",  "memory-backend-memfd,id=mem,size=" + memory + "M,share=on",
            "-numa",    "node,memdev=mem",
            "-chardev", "socket,id=tpmi2c,path=" + socket,
            "-device",  "vhost-user-i2c-pci,chardev=tpmi2c"};
}

std::vector<std::string> ivshmem_doorbell_args(const std::string& socket) {
    return {"-chardev", "socket,id=tpmirq,path=" + socket, "-device",
            "ivshmem-doorbell,chardev=tpmirq,vectors=1"};
}

std::string irq_socket_beside(const std::string& i2c_socket) {
    return (fs::path(i2c_socket).parent_path() / "tpm-irq.sock").string();
}

GuestRunResult run_guest(const GuestRunOptions& options) {
    GuestRunResult r;
    fs::path dir = fs::absolute(options.run_dir);
    fs::create_directories(dir);
    r.run_dir = dir.string();
    r.console_log = (dir / "console.log").string();
    r.backend_log = (dir / "tpmd.log").string();
    r.stats_path = (dir / "tpmd-stats.json").string();
    fs::path state_dir = dir / "tpm-state";
    fs::remove_all(state_dir); // a fresh TPM for every boot
    fs::create_directories(state_dir);
    std::string socket = socket_path(dir);
    fs::remove(socket);
    fs::remove(irq_socket_beside(socket));
    auto progress = [&](const std::string& text) {
        if (options.on_progress)
            options.on_progress(text);
    };

    progress("starting ksweep-tpmd");
    std::vector<std::string> backend_args{
        options.tpmd,       "--registry", options.registry, "--device",      options.device.driver,
        "--socket",         socket,       "--profile",      options.profile, "--state-dir",
        state_dir.string(), "--stats",    r.stats_path,     "--log",         r.backend_log};
    if (options.interrupt == device::InterruptMode::wired)
        backend_args.insert(backend_args.end(), {"--irq-socket", irq_socket_beside(socket)});
    if (options.trace) {
        r.trace_log = (dir / "i2c-trace.log").string();
        backend_args.insert(backend_args.end(), {"--trace", r.trace_log});
    }
    ChildProcess backend(backend_args, "", options.nice);
    if (!wait_until_ready(backend, r.backend_output)) {
        backend.terminate();
        backend.read_available(r.backend_output);
        r.outcome = GuestOutcome::backend_failed;
        r.message = "ksweep-tpmd did not become ready:\n" + r.backend_output + where_logs_are(r);
        return r;
    }

    auto command = qemu_command(options, socket);
    std::ofstream console(r.console_log, std::ios::binary | std::ios::trunc);
    for (const auto& arg : command)
        console << arg << ' ';
    console << "\n\n" << std::flush;

    progress("booting");
    auto start = Clock::now();
    ChildProcess qemu(command, "", options.nice);
    r.nice = std::max(qemu.nice(), backend.nice());
    GuestOutputParser parser;
    std::string pending;
    size_t phases_shown = 0;
    bool timed_out = false, backend_died = false;
    std::optional<Clock::time_point> backend_exited;
    while (qemu.output_fd() >= 0) {
        if (Clock::now() - start > options.timeout) {
            timed_out = true;
            qemu.terminate();
            break;
        }
        // ksweep-tpmd also exits when QEMU disconnects at power-off; only a back end gone while
        // QEMU keeps running is a failure (the guest's next transfer would hang forever).
        if (!backend_exited && backend.poll_exit())
            backend_exited = Clock::now();
        if (backend_exited && Clock::now() - *backend_exited > kBackendGoneGrace) {
            backend_died = true;
            qemu.terminate();
            break;
        }
        pollfd fds[2] = {{qemu.output_fd(), POLLIN, 0}, {backend.output_fd(), POLLIN, 0}};
        poll(fds, backend.output_fd() >= 0 ? 2 : 1, 200);
        backend.read_available(r.backend_output);
        std::string chunk;
        qemu.read_available(chunk);
        console << chunk << std::flush; // kept as it comes, so a killed run still has it
        pending += chunk;
        size_t samples_before = parser.report().samples.size();
        split_lines(pending, [&](std::string_view line) { parser.feed_line(line); });
        const auto& report = parser.report();
        for (; phases_shown < report.phases.size(); ++phases_shown)
            progress(report.phases[phases_shown]);
        if (report.samples.size() != samples_before && report.requested)
            progress("extend " + std::to_string(report.samples.size()) + "/" +
                     std::to_string(*report.requested));
    }
    if (!pending.empty())
        parser.feed_line(pending);
    int qemu_status = qemu.wait();
    r.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();

    // The back end writes its statistics when it stops.
    backend.terminate();
    backend.read_available(r.backend_output);
    std::ofstream(dir / "tpmd.out") << r.backend_output;
    r.stats = read_file(r.stats_path).value_or("");
    r.device = parse_device_stats(r.stats, options.device.benchmark.command);
    r.report = parser.report();

    if (timed_out) {
        r.outcome = GuestOutcome::timed_out;
        r.message = "the guest did not finish within " + std::to_string(options.timeout.count()) +
                    " s (last phase: '" + r.report.last_phase() + "', " +
                    std::to_string(r.report.samples.size()) + " extends done); killed it" +
                    where_logs_are(r);
        return r;
    }
    if (backend_died) {
        r.outcome = GuestOutcome::backend_failed;
        r.message = "ksweep-tpmd exited during the boot (status " + std::to_string(backend.wait()) +
                    ", last phase: '" + r.report.last_phase() + "'); stopped the guest:\n" +
                    last_lines(r.backend_output, 5) + where_logs_are(r);
        return r;
    }
    judge(r, options);
    if (r.outcome != GuestOutcome::passed) {
        if (qemu_status != 0)
            r.message += "\n  qemu exited with status " + std::to_string(qemu_status) + ":\n" +
                         last_lines(read_file(r.console_log).value_or(""), 5);
        r.message += where_logs_are(r);
    }
    return r;
}

} // namespace ksweep::guest
