// ksweep-tpmd: an emulated I2C chip for QEMU's vhost-user-i2c-pci, the one the device registry
// (qemu/devices.yaml) names for a driver: a TPM (its model class, TPM family, address and
// profile) or a device file's chip (devices/*.yaml, the table model); and, at 0x7f, the
// counters for the guest to read (stats_device.h). With --irq-socket also the ivshmem server
// whose doorbell carries the chip's interrupt output into the guest (ivshmem_doorbell.h).
//
//   ksweep-tpmd --registry FILE --device NAME --socket PATH --state-dir DIR --stats FILE
//               [--irq-socket PATH] [--profile FILE] [--log FILE] [--trace FILE]
//               [--address 0x2e]
//
// Listens on the sockets, prints "ready" on stdout once QEMU may connect, serves QEMU's
// connections and exits when QEMU has closed them or on SIGTERM/SIGINT, writing the chip's
// counters to the stats file (JSON) and a stats line to the log either way.
#include "device/device_models.h"
#include "device/device_profile.h"
#include "device/device_registry.h"
#include "device/i2c_bus.h"
#include "device/ivshmem_doorbell.h"
#include "device/socket_server.h"
#include "device/stats_device.h"
#include "device/table_device.h"
#include "device/tpm_engine.h"
#include "device/vhost_user_backend.h"
#include "device/virtio_i2c.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <tuple>
#include <unistd.h>

using namespace ksweep::device;

namespace {

struct Options {
    std::string registry, device, socket, irq_socket, profile, state_dir, stats, log, trace;
    std::optional<uint16_t> address;
};

constexpr const char* kUsage =
    "usage: ksweep-tpmd --registry FILE --device NAME --socket PATH --state-dir DIR\n"
    "                   --stats FILE [--irq-socket PATH] [--profile FILE] [--log FILE]\n"
    "                   [--trace FILE] [--address ADDR]\n"
    "Serves the emulated I2C chip the device registry names for NAME (a TPM: its model,\n"
    "libtpms engine, address and default profile; a device file's chip: its table) to\n"
    "QEMU's vhost-user-i2c-pci. --state-dir holds a TPM's state (unused by a device file).\n"
    "--irq-socket also serves ivshmem-doorbell: its MSI-X vector 0 is the chip's interrupt\n"
    "output (a model that has one).\n"
    "--trace writes one line per I2C message: time, R/W, address, bytes; and one per\n"
    "interrupt pulse.\n";

bool parse_options(int argc, char** argv, Options& o) {
    std::map<std::string, std::string*> values = {
        {"--registry", &o.registry},     {"--device", &o.device},   {"--socket", &o.socket},
        {"--irq-socket", &o.irq_socket}, {"--profile", &o.profile}, {"--state-dir", &o.state_dir},
        {"--stats", &o.stats},           {"--log", &o.log},         {"--trace", &o.trace}};
    std::string address;
    values["--address"] = &address;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::cout << kUsage;
            std::exit(0);
        }
        std::string value;
        if (auto eq = arg.find('='); eq != std::string::npos) {
            value = arg.substr(eq + 1);
            arg.resize(eq);
        } else if (i + 1 < argc) {
            value = argv[++i];
        }
        auto it = values.find(arg);
        if (it == values.end() || value.empty()) {
            std::cerr << "ksweep-tpmd: bad argument '" << argv[i] << "'\n" << kUsage;
            return false;
        }
        *it->second = value;
    }
    if (o.registry.empty() || o.device.empty() || o.socket.empty() || o.state_dir.empty() ||
        o.stats.empty()) {
        std::cerr << "ksweep-tpmd: --registry, --device, --socket, --state-dir and --stats are "
                     "required\n"
                  << kUsage;
        return false;
    }
    if (!address.empty()) {
        char* end = nullptr;
        unsigned long a = std::strtoul(address.c_str(), &end, 0);
        if (*end || a > 0x7f) {
            std::cerr << "ksweep-tpmd: --address must be a 7-bit I2C address\n";
            return false;
        }
        o.address = static_cast<uint16_t>(a);
    }
    return true;
}

// "[     1.234567] ": the time since the back end started, so log and trace lines line up
// with each other and with the guest's console.
class Stamp {
  public:
    std::string operator()(TimePoint when) const {
        long long us = std::chrono::duration_cast<std::chrono::microseconds>(when - start_).count();
        char text[32];
        std::snprintf(text, sizeof text, "[%6lld.%06lld] ", us / 1000000, us % 1000000);
        return text;
    }

  private:
    TimePoint start_ = std::chrono::steady_clock::now();
};

class Log {
  public:
    Log(const std::string& path, const Stamp& stamp) : stamp_(stamp) {
        if (!path.empty())
            file_.open(path, std::ios::app);
    }
    bool ok() const { return !file_.is_open() || file_.good(); }
    void operator()(const std::string& line) {
        std::ostream& out = file_.is_open() ? static_cast<std::ostream&>(file_) : std::cerr;
        out << stamp_(std::chrono::steady_clock::now()) << line << '\n' << std::flush;
    }

  private:
    const Stamp& stamp_;
    std::ofstream file_;
};

// "[     1.234567] R 0x2e 80 (NACK)": one line per message, buffered (the trace is for reading
// after the run; flushing per message would add to the very latencies it records).
class Trace {
  public:
    Trace(const std::string& path, const Stamp& stamp) : stamp_(stamp) {
        file_.open(path, std::ios::trunc);
    }
    bool ok() const { return file_.good(); }
    void operator()(const I2cMessage& m) {
        char head[16];
        std::snprintf(head, sizeof head, "%c 0x%02x", m.read ? 'R' : 'W', m.address);
        file_ << stamp_(m.start) << head;
        for (uint8_t byte : m.data) {
            char hex[4];
            std::snprintf(hex, sizeof hex, " %02x", byte);
            file_ << hex;
        }
        file_ << (m.acked ? "\n" : " (NACK)\n");
    }
    // "[     1.234567] IRQ: chip pulsed its line: MSI-X vector 0"
    void operator()(const std::string& line) {
        file_ << stamp_(std::chrono::steady_clock::now()) << line << '\n';
    }

  private:
    const Stamp& stamp_;
    std::ofstream file_;
};

bool write_stats(const std::string& path, const std::string& json) {
    std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << json;
        if (!out)
            return false;
    }
    return std::rename(tmp.c_str(), path.c_str()) == 0;
}

} // namespace

int main(int argc, char** argv) {
    Options opt;
    if (!parse_options(argc, argv, opt))
        return 2;
    Stamp stamp;
    Log log(opt.log, stamp);
    if (!log.ok()) {
        std::cerr << "ksweep-tpmd: cannot open log " << opt.log << '\n';
        return 2;
    }
    std::optional<Trace> trace;
    if (!opt.trace.empty() && !trace.emplace(opt.trace, stamp).ok()) {
        std::cerr << "ksweep-tpmd: cannot write trace " << opt.trace << '\n';
        return 2;
    }
    LogFn logf = [&log](const std::string& line) { log(line); };

    // What to emulate: the registry's entry, its profile (or the one given), its model class.
    std::optional<DeviceRegistry> registry;
    DeviceProfile profile;
    try {
        registry = load_device_registry(opt.registry);
    } catch (const RegistryError& e) {
        std::cerr << "ksweep-tpmd: " << e.what() << '\n';
        return 2;
    }
    const DeviceEntry* entry = registry->find(opt.device);
    if (!entry) {
        std::string known;
        for (const auto& e : registry->entries())
            known += (known.empty() ? "" : ", ") + e.driver;
        std::cerr << "ksweep-tpmd: no device '" << opt.device << "' in " << opt.registry << " ("
                  << known << ")\n";
        return 2;
    }
    try {
        profile = load_device_profile(opt.profile.empty() ? entry->profile : opt.profile);
    } catch (const ProfileError& e) {
        std::cerr << "ksweep-tpmd: " << e.what() << '\n';
        return 2;
    }
    if (std::string why = model_mismatch(*entry, profile); !why.empty()) {
        std::cerr << "ksweep-tpmd: " << why << '\n';
        return 2;
    }
    uint16_t chip_address = opt.address.value_or(entry->i2c_address);

    // The bus time of a message is tens of microseconds: without this, the default 50 us timer
    // slack would stretch every one of those sleeps.
    prctl(PR_SET_TIMERSLACK, 1UL);
    MonotonicClock clock;
    I2cBus bus(clock, profile.bus_byte_time);
    if (trace)
        bus.set_trace([&trace](const I2cMessage& m) { (*trace)(m); });

    // A TPM is its model class on libtpms; a device file is the one table model.
    std::unique_ptr<LibtpmsEngine> engine;
    std::unique_ptr<TpmModel> tpm;
    std::unique_ptr<TableDevice> table;
    std::string model_name = entry->model;
    std::span<const Requirement> checks;
    if (entry->spec) {
        table = std::make_unique<TableDevice>(clock, *entry->spec, profile, logf);
        checks = table_device_checks();
    } else {
        const ModelClass& model = *find_model_class(entry->model);
        std::error_code ec; // a state dir that cannot be made fails libtpms' start, which says so
        std::filesystem::create_directories(opt.state_dir, ec);
        std::string error;
        engine = LibtpmsEngine::start(opt.state_dir, entry->tpm, error);
        if (!engine) {
            std::cerr << "ksweep-tpmd: " << error << '\n';
            return 1;
        }
        tpm = model.create(clock, *engine, profile, logf);
        checks = model.checks;
        model_name += std::string(", TPM ") + to_string(entry->tpm);
    }
    I2cDevice& chip = table ? static_cast<I2cDevice&>(*table) : *tpm;
    bus.attach(chip_address, chip);
    VirtioI2cDevice i2c(bus, logf);
    TransportStats transport;
    VhostUserBackend backend(
        kVirtioI2cFZeroLengthRequest,
        [&](std::span<const uint8_t> descriptors, uint16_t head, const GuestMemory& memory) {
            auto start = clock.now();
            uint32_t used = i2c.handle(descriptors, head, memory);
            auto ns = static_cast<uint64_t>((clock.now() - start).count());
            transport.service_ns_total += ns;
            transport.service_ns_max = std::max(transport.service_ns_max, ns);
            return used;
        },
        logf);

    // The interrupt line, on its own socket: the ivshmem server of QEMU's doorbell device.
    IvshmemDoorbell doorbell(logf);
    bool wired = !opt.irq_socket.empty();
    if (wired) {
        if (!tpm || !tpm->wire_interrupt(doorbell)) {
            std::cerr << "ksweep-tpmd: --irq-socket: model " << entry->model
                      << " has no interrupt output\n";
            return 2;
        }
        if (trace)
            doorbell.set_trace([&trace](const std::string& line) { (*trace)(line); });
    }

    // SIGTERM/SIGINT arrive as a readable fd, so the poll loop ends cleanly and writes stats.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
    signal(SIGPIPE, SIG_IGN);
    int stop_fd = signalfd(-1, &stop_signals, SFD_CLOEXEC);
    if (stop_fd < 0) {
        std::cerr << "ksweep-tpmd: signalfd failed\n";
        return 1;
    }

    const InterruptStats* interrupts = wired ? &doorbell.stats() : nullptr;
    auto stats_json = [&] {
        transport.requests = i2c.requests();
        transport.malformed = i2c.malformed();
        transport.kicks = backend.kicks();
        return table ? format_table_stats_json(profile.name, table->stats(), transport)
                     : format_stats_json(profile.name, tpm->stats(), transport, checks, interrupts);
    };
    // The counters in-band, for a guest whose host cannot read the stats file (LAVA).
    StatsDevice stats_device(stats_json);
    bus.attach(kStatsAddress, stats_device);

    SocketServer server(logf);
    std::vector<std::string> sockets;
    std::string error;
    for (auto [name, path, peer] :
         {std::tuple<const char*, std::string, SocketPeer*>{"vhost-user", opt.socket, &backend},
          {"ivshmem", opt.irq_socket, wired ? &doorbell : nullptr}}) {
        if (!peer)
            continue;
        int listener = listen_on(path, error);
        if (listener < 0) {
            std::cerr << "ksweep-tpmd: " << error << '\n';
            return 1;
        }
        server.add(name, listener, *peer);
        sockets.push_back(path);
    }
    char address[8];
    std::snprintf(address, sizeof address, "0x%02x", chip_address);
    logf("listening on " + opt.socket + (wired ? " and " + opt.irq_socket : "") + ", profile " +
         profile.name + ", " + entry->driver + ": model " + model_name + " at " + address +
         (wired ? ", interrupt on the ivshmem doorbell" : ""));
    std::cout << "ready" << std::endl;

    bool closed = server.serve(stop_fd);
    logf(closed ? "QEMU is gone" : "stopping on signal");
    std::error_code ec;
    for (const auto& path : sockets)
        std::filesystem::remove(path, ec);

    std::string stats = stats_json();
    logf(table ? format_table_stats_line(table->stats(), transport)
               : format_stats_line(tpm->stats(), transport, checks, interrupts));
    if (!write_stats(opt.stats, stats)) {
        std::cerr << "ksweep-tpmd: cannot write " << opt.stats << '\n';
        return 1;
    }
    return 0;
}
