#include "guest/guest_output.h"

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace ksweep::guest {

namespace {

constexpr std::string_view kGuestTag = "ksweep-guest: ";
constexpr std::string_view kExtendTag = "ksweep-extend: ";
constexpr std::string_view kOperationTag = "ksweep-op: ";

bool consume(std::string_view& text, std::string_view prefix) {
    if (text.substr(0, prefix.size()) != prefix)
        return false;
    text.remove_prefix(prefix.size());
    return true;
}

// The value of `key=` among space-separated fields, as a number in `base`.
template <typename T>
std::optional<T> field(std::string_view text, std::string_view key, int base = 10) {
    size_t at = 0;
    while ((at = text.find(key, at)) != std::string_view::npos) {
        if (at == 0 || text[at - 1] == ' ') {
            std::string_view value = text.substr(at + key.size());
            value = value.substr(0, value.find(' '));
            if (base == 16)
                consume(value, "0x");
            T out{};
            auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), out, base);
            if (ec == std::errc() && end == value.data() + value.size())
                return out;
            return std::nullopt;
        }
        at += key.size();
    }
    return std::nullopt;
}

// A PCR value as tpm_extend prints it: a SHA-1 or SHA-256 digest in hex.
std::optional<Bytes> pcr_digest(std::string_view hex) {
    auto bytes = bytes_from_hex(hex);
    if (bytes && (bytes->size() == 20 || bytes->size() == 32))
        return bytes;
    return std::nullopt;
}

} // namespace

std::string GuestReport::last_phase() const {
    if (phases.empty())
        return "firmware/kernel boot (init never spoke)";
    return phases.back();
}

std::uint32_t GuestReport::failed_extends() const {
    std::uint32_t failed = 0;
    for (const auto& s : samples)
        failed += s.rc != 0;
    return failed;
}

bool GuestReport::complete() const {
    return requested && samples.size() == *requested && failed_extends() == 0 &&
           (operation || (pcr_initial && pcr_final)) && ended;
}

bool GuestOutputParser::feed_line(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n'))
        line.remove_suffix(1);
    // A kernel message or terminal escape may precede our text on the same console line.
    if (size_t at = line.find(kGuestTag); at != std::string_view::npos) {
        on_guest(line.substr(at + kGuestTag.size()));
        return true;
    }
    if (size_t at = line.find(kExtendTag); at != std::string_view::npos) {
        on_extend(line.substr(at + kExtendTag.size()));
        return true;
    }
    if (size_t at = line.find(kOperationTag); at != std::string_view::npos) {
        on_operation(line.substr(at + kOperationTag.size()));
        return true;
    }
    return false;
}

void GuestOutputParser::on_guest(std::string_view rest) {
    if (consume(rest, "phase ")) {
        report_.phases.emplace_back(rest);
        if (rest == "poweroff")
            report_.powered_off = true;
    } else if (consume(rest, "tpm0 ")) {
        int version = 0;
        auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), version);
        if (ec == std::errc())
            report_.tpm_version = version;
    } else if (consume(rest, "hz ")) {
        report_.measured_hz = field<int>(rest, "measured=");
    } else if (consume(rest, "opmsg ")) {
        report_.operation_dmesg.emplace_back(rest);
    } else if (consume(rest, "client ")) {
        report_.client = std::string(rest);
    } else if (consume(rest, "module ")) {
        report_.modules.emplace_back(rest);
    } else if (consume(rest, "error ")) {
        report_.errors.emplace_back(rest);
    } else if (consume(rest, "dmesg ")) {
        report_.dmesg.emplace_back(rest);
    }
}

void GuestOutputParser::on_extend(std::string_view rest) {
    if (consume(rest, "extend ")) {
        auto index = field<std::uint32_t>(rest, "i=");
        auto ns = field<std::int64_t>(rest, "ns=");
        auto rc = field<std::uint32_t>(rest, "rc=", 16);
        if (index && ns && rc)
            report_.samples.push_back({*index, *ns, *rc});
        else
            report_.errors.push_back("unreadable extend record: " + std::string(rest));
    } else if (consume(rest, "begin ")) {
        report_.requested = field<std::uint32_t>(rest, "n=");
    } else if (consume(rest, "reset ")) {
        report_.reset_rc = field<std::uint32_t>(rest, "rc=", 16);
    } else if (consume(rest, "pcr16-initial ")) {
        report_.pcr_initial = pcr_digest(rest);
    } else if (consume(rest, "pcr16-final ")) {
        report_.pcr_final = pcr_digest(rest);
    } else if (consume(rest, "end ")) {
        report_.ended = true;
    } else if (consume(rest, "error ")) {
        report_.errors.emplace_back(rest);
    }
}

void GuestOutputParser::on_operation(std::string_view rest) {
    if (consume(rest, "op ")) {
        auto index = field<std::uint32_t>(rest, "i=");
        auto ns = field<std::int64_t>(rest, "ns=");
        auto rc = field<std::uint32_t>(rest, "rc=", 16);
        size_t value = rest.find(" value=");
        if (index && ns && rc && value != std::string_view::npos) {
            report_.samples.push_back({*index, *ns, *rc});
            report_.values.emplace_back(rest.substr(value + 7));
        } else {
            report_.errors.push_back("unreadable operation record: " + std::string(rest));
        }
    } else if (consume(rest, "begin ")) {
        report_.operation = true;
        report_.requested = field<std::uint32_t>(rest, "n=");
    } else if (consume(rest, "end ")) {
        report_.ended = true;
    } else if (consume(rest, "error ")) {
        report_.errors.emplace_back(rest);
    }
}

std::string first_operation_failure(const GuestReport& report) {
    for (size_t i = 0; i < report.samples.size(); ++i) {
        const ExtendSample& s = report.samples[i];
        if (s.rc == 0)
            continue;
        std::string line = "operation " + std::to_string(s.index) + " failed: errno " +
                           std::to_string(s.rc) + " (" + std::strerror(static_cast<int>(s.rc)) +
                           ")";
        // The driver's own words: what the kernel logged while the operations ran, its lines
        // (they name the client: "ak8974 0-000e: ...") first.
        const std::string* said = nullptr;
        for (const auto& d : report.operation_dmesg)
            if (!said || (!report.client.empty() && d.find(report.client) != std::string::npos &&
                          said->find(report.client) == std::string::npos))
                said = &d;
        if (said) {
            size_t text = said->find("] ");
            line += "; the kernel: " + (text == std::string::npos ? *said : said->substr(text + 2));
        }
        return line;
    }
    return "";
}

std::string measured_hz_note(const GuestReport& report, int config_hz) {
    if (!report.measured_hz || *report.measured_hz <= 0)
        return ", not measured in the guest";
    // Half a second of jiffies under TCG on a loaded host loses a few ticks (216 counted at
    // HZ=250 was seen): judge by the nearest HZ Kconfig offers, not by the exact count.
    int measured = *report.measured_hz, nearest = 100;
    for (int hz : {250, 300, 1000})
        if (std::abs(hz - measured) < std::abs(nearest - measured))
            nearest = hz;
    std::string counted = std::to_string(measured);
    return nearest == config_hz
               ? ", the guest counted " + counted
               : ", but the guest counted " + counted + " (HZ=" + std::to_string(nearest) + "?)";
}

GuestReport parse_guest_output(std::string_view console) {
    GuestOutputParser parser;
    while (!console.empty()) {
        size_t end = console.find('\n');
        parser.feed_line(console.substr(0, end));
        if (end == std::string_view::npos)
            break;
        console.remove_prefix(end + 1);
    }
    return parser.report();
}

} // namespace ksweep::guest
