#include "device/tpm_chip_stats.h"

#include <sstream>

namespace ksweep::device {

namespace {

std::string json_string(const std::string& s) {
    std::ostringstream os;
    os << '"';
    for (char c : s) {
        if (c == '"' || c == '\\')
            os << '\\' << c;
        else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            os << buf;
        } else
            os << c;
    }
    os << '"';
    return os.str();
}

uint64_t mean_us(const TransportStats& x) {
    return x.requests ? x.service_ns_total / x.requests / 1000 : 0;
}

} // namespace

uint64_t TpmChipStats::violations_of(Requirement requirement) const {
    switch (requirement) {
    case Requirement::min_status_gap:
        return status_gap_violations;
    case Requirement::min_poll_interval:
        return poll_interval_violations;
    case Requirement::min_ready_poll_interval:
        return ready_poll_violations;
    }
    return 0;
}

std::string format_stats_line(const TpmChipStats& t, const TransportStats& x,
                              std::span<const Requirement> checked) {
    std::ostringstream os;
    os << "stats: commands=" << t.commands << " violations=" << t.violations();
    for (Requirement r : checked)
        os << ' ' << requirement_info(r).counter << '=' << t.violations_of(r);
    os << " nacks=" << t.nacks << " aborts=" << t.aborts
       << " response_retries=" << t.response_retries << " status_reads=" << t.status_reads
       << " busy_status_reads=" << t.busy_status_reads << " protocol_errors=" << t.protocol_errors
       << " requests=" << x.requests << " malformed_requests=" << x.malformed
       << " kicks=" << x.kicks << " service_us_mean=" << mean_us(x)
       << " service_us_max=" << x.service_ns_max / 1000;
    return os.str();
}

std::string format_stats_json(const std::string& profile, const TpmChipStats& t,
                              const TransportStats& x, std::span<const Requirement> checked) {
    std::ostringstream os;
    os << "{\n  \"profile\": " << json_string(profile) << ",\n  \"commands\": " << t.commands
       << ",\n  \"commands_by_code\": {";
    const char* sep = "";
    for (const auto& [code, n] : t.commands_by_code) {
        os << sep << "\n    " << json_string(tpm_command_name(code)) << ": " << n;
        sep = ",";
    }
    os << (t.commands_by_code.empty() ? "" : "\n  ") << "},\n"
       << "  \"violations\": " << t.violations() << ",\n";
    for (Requirement r : checked)
        os << "  \"" << requirement_info(r).counter << "\": " << t.violations_of(r) << ",\n";
    os << "  \"nacks\": " << t.nacks << ",\n"
       << "  \"aborts\": " << t.aborts << ",\n"
       << "  \"response_retries\": " << t.response_retries << ",\n"
       << "  \"status_reads\": " << t.status_reads << ",\n"
       << "  \"busy_status_reads\": " << t.busy_status_reads << ",\n"
       << "  \"protocol_errors\": " << t.protocol_errors << ",\n"
       << "  \"virtio_requests\": " << x.requests << ",\n"
       << "  \"malformed_requests\": " << x.malformed << ",\n"
       << "  \"kicks\": " << x.kicks << ",\n"
       << "  \"request_service_us_mean\": " << mean_us(x) << ",\n"
       << "  \"request_service_us_max\": " << x.service_ns_max / 1000 << "\n}\n";
    return os.str();
}

} // namespace ksweep::device
