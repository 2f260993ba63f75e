#include "device/tpm_chip_stats.h"

#include <nlohmann/json.hpp>
#include <sstream>

namespace ksweep::device {

namespace {

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
    case Requirement::min_ready_write_gap:
        return ready_write_gap_violations;
    case Requirement::min_write_idle: // a device file's chip: no TPM checks it
        return 0;
    }
    return 0;
}

std::string format_stats_line(const TpmChipStats& t, const TransportStats& x,
                              std::span<const Requirement> checked,
                              const InterruptStats* interrupts) {
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
    if (interrupts)
        os << " interrupt_pulses=" << interrupts->pulses
           << " interrupts_delivered=" << interrupts->delivered;
    return os.str();
}

void add_transport_json(nlohmann::ordered_json& stats, const TransportStats& x) {
    stats["virtio_requests"] = x.requests;
    stats["malformed_requests"] = x.malformed;
    stats["kicks"] = x.kicks;
}

std::string format_stats_json(const std::string& profile, const TpmChipStats& t,
                              const TransportStats& x, std::span<const Requirement> checked,
                              const InterruptStats* interrupts) {
    nlohmann::ordered_json by_code = nlohmann::ordered_json::object();
    for (const auto& [code, n] : t.commands_by_code)
        by_code[tpm_command_name(code)] = n;
    nlohmann::ordered_json stats = {
        {"profile", profile},
        {"commands", t.commands},
        {"commands_by_code", std::move(by_code)},
        {"violations", t.violations()},
    };
    for (Requirement r : checked)
        stats[requirement_info(r).counter] = t.violations_of(r);
    stats["nacks"] = t.nacks;
    stats["aborts"] = t.aborts;
    stats["response_retries"] = t.response_retries;
    stats["status_reads"] = t.status_reads;
    stats["busy_status_reads"] = t.busy_status_reads;
    stats["protocol_errors"] = t.protocol_errors;
    add_transport_json(stats, x);
    stats["request_service_us_mean"] = mean_us(x);
    stats["request_service_us_max"] = x.service_ns_max / 1000;
    if (interrupts) {
        stats["interrupt_pulses"] = interrupts->pulses;
        stats["interrupts_delivered"] = interrupts->delivered;
    }
    return stats.dump(2) + "\n";
}

} // namespace ksweep::device
