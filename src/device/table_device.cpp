#include "device/table_device.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ksweep::device {

namespace {

constexpr Requirement kChecks[] = {Requirement::min_poll_interval, Requirement::min_write_idle};
constexpr uint64_t kMaxLogged = 20;

long long micros(Duration d) {
    return std::chrono::duration_cast<std::chrono::microseconds>(d).count();
}

std::string hex(unsigned value) {
    char text[8];
    std::snprintf(text, sizeof text, "0x%02x", value);
    return text;
}

uint64_t mask_of(const RegisterSpec& r) {
    return r.width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * r.width)) - 1;
}

bool targets(const RuleSpec& rule, const std::string& name) {
    return rule.set_bits.count(name) || rule.clear_bits.count(name) || rule.set.count(name) ||
           rule.reads.count(name);
}

} // namespace

uint64_t TableDeviceStats::violations_of(Requirement requirement) const {
    switch (requirement) {
    case Requirement::min_poll_interval:
        return poll_interval_violations;
    case Requirement::min_write_idle:
        return write_idle_violations;
    default:
        return 0;
    }
}

std::span<const Requirement> table_device_checks() {
    return kChecks;
}

std::string table_profile_mismatch(const DeviceSpec& spec, const DeviceProfile& profile) {
    for (const auto& name : spec.delay_names())
        if (!profile.delays.count(name))
            return profile.source_path + ": has no delay '" + name + "', which " + spec.path +
                   " names (delays: {" + name + ": {us: N, spread_us: N}})";
    for (Requirement r : stated_requirements(profile.requirements))
        if (std::find(std::begin(kChecks), std::end(kChecks), r) == std::end(kChecks))
            return profile.source_path + ": states " + requirement_info(r).profile_key +
                   ", which a device file's chip does not check";
    return "";
}

std::string format_table_stats_line(const TableDeviceStats& s, const TransportStats& x) {
    std::ostringstream os;
    os << "stats: messages=" << s.messages << " violations=" << s.violations();
    for (Requirement r : kChecks)
        os << ' ' << requirement_info(r).counter << '=' << s.violations_of(r);
    os << " reads=" << s.reads << " writes=" << s.writes << " nacks=" << s.nacks
       << " busy_accesses=" << s.busy_accesses << " rules_fired=" << s.rules_fired
       << " protocol_errors=" << s.protocol_errors << " requests=" << x.requests
       << " malformed_requests=" << x.malformed << " kicks=" << x.kicks;
    return os.str();
}

std::string format_table_stats_json(const std::string& profile, const TableDeviceStats& s,
                                    const TransportStats& x) {
    nlohmann::ordered_json stats = {
        {"profile", profile}, {"messages", s.messages}, {"violations", s.violations()}};
    for (Requirement r : kChecks)
        stats[requirement_info(r).counter] = s.violations_of(r);
    stats["reads"] = s.reads;
    stats["writes"] = s.writes;
    stats["nacks"] = s.nacks;
    stats["busy_accesses"] = s.busy_accesses;
    stats["rules_fired"] = s.rules_fired;
    stats["protocol_errors"] = s.protocol_errors;
    add_transport_json(stats, x);
    return stats.dump(2) + "\n";
}

TableDevice::TableDevice(Clock& clock, const DeviceSpec& spec, const DeviceProfile& profile,
                         LogFn log)
    : clock_(clock), spec_(spec), profile_(profile), log_(std::move(log)), random_(profile.seed) {
    read_map_.fill({-1, 0});
    write_map_.fill({-1, 0});
    for (const auto& r : spec.registers) {
        int index = static_cast<int>(registers_.size());
        registers_.push_back({&r, r.reset, {}, {}});
        for (unsigned b = 0; b < r.width; ++b) {
            if (r.readable)
                read_map_[r.address + b] = {index, b};
            if (r.writable)
                write_map_[r.address + b] = {index, b};
        }
    }
}

uint8_t TableDevice::byte_of(const Register& r, uint64_t value, unsigned index) const {
    unsigned shift = 8 * (r.spec->big_endian ? r.spec->width - 1 - index : index);
    return static_cast<uint8_t>(value >> shift);
}

void TableDevice::set_byte(Register& r, unsigned index, uint8_t byte) {
    unsigned shift = 8 * (r.spec->big_endian ? r.spec->width - 1 - index : index);
    r.value = (r.value & ~(uint64_t{0xff} << shift)) | (uint64_t{byte} << shift);
}

TableDevice::Register* TableDevice::reg(const std::string& name) {
    for (auto& r : registers_)
        if (r.spec->name == name)
            return &r;
    return nullptr;
}

void TableDevice::protocol_error(const std::string& what) {
    if (++stats_.protocol_errors <= kMaxLogged)
        log_("chip: protocol error: " + what);
}

void TableDevice::violation(uint64_t& counter, const std::string& what) {
    if (++counter <= kMaxLogged)
        log_("chip: violation: " + what);
}

Duration TableDevice::draw(const RuleSpec& rule) {
    if (rule.after_ns)
        return Duration(static_cast<int64_t>(*rule.after_ns));
    if (rule.delay.empty())
        return Duration::zero();
    const DelaySpec& d = profile_.delays.at(rule.delay); // checked: table_profile_mismatch
    if (d.spread == Duration::zero())
        return d.typical;
    std::uniform_int_distribution<int64_t> spread(-d.spread.count(), d.spread.count());
    return d.typical + Duration(spread(random_));
}

void TableDevice::apply(const RuleSpec& rule) {
    for (const auto& [name, bits] : rule.set_bits)
        reg(name)->value |= bits;
    for (const auto& [name, bits] : rule.clear_bits)
        reg(name)->value &= ~bits;
    for (const auto& [name, value] : rule.set)
        reg(name)->value = value;
    for (const auto& [name, values] : rule.reads)
        reg(name)->queued.assign(values.begin(), values.end());
}

void TableDevice::apply_due() {
    TimePoint now = clock_.now();
    std::stable_sort(pending_.begin(), pending_.end(),
                     [](const Pending& a, const Pending& b) { return a.due < b.due; });
    size_t done = 0;
    while (done < pending_.size() && pending_[done].due <= now)
        apply(*pending_[done++].rule);
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(done));
}

void TableDevice::fire(const RuleSpec& rule, TimePoint now) {
    ++stats_.rules_fired;
    Duration delay = draw(rule);
    if (rule.busy) {
        busy_until_ = std::max(busy_until_, now + delay);
        busy_rule_ = &rule;
        idle_from_ = now;
    }
    bool acts = !rule.set_bits.empty() || !rule.clear_bits.empty() || !rule.set.empty() ||
                !rule.reads.empty();
    if (!acts)
        return;
    if (delay == Duration::zero())
        apply(rule);
    else
        pending_.push_back({now + delay, &rule});
}

bool TableDevice::busy() {
    return clock_.now() < busy_until_;
}

bool TableDevice::admit(bool is_read, bool& answered_busy) {
    TimePoint now = clock_.now();
    ++stats_.messages;
    (is_read ? stats_.reads : stats_.writes) += 1;
    const auto& idle = profile_.requirements.min_write_idle;
    if (idle && idle_from_ && now - *idle_from_ < *idle)
        violation(stats_.write_idle_violations,
                  std::string(is_read ? "read " : "write ") +
                      std::to_string(micros(now - *idle_from_)) +
                      " us after a write that made the chip busy (min_write_idle_us " +
                      std::to_string(micros(*idle)) + ")");
    idle_from_.reset(); // one access after the write is the one judged
    answered_busy = now < busy_until_;
    if (!answered_busy)
        return true;
    ++stats_.busy_accesses;
    if (busy_rule_ && busy_rule_->busy_nack) {
        ++stats_.nacks;
        return false;
    }
    return true;
}

bool TableDevice::pending_changes(const Register& r) const {
    return std::any_of(pending_.begin(), pending_.end(),
                       [&](const Pending& p) { return targets(*p.rule, r.spec->name); });
}

void TableDevice::check_poll(Register& r, TimePoint now) {
    if (!pending_changes(r)) {
        r.last_poll.reset();
        return;
    }
    const auto& min = profile_.requirements.min_poll_interval;
    if (min && r.last_poll && now - *r.last_poll < *min)
        violation(stats_.poll_interval_violations,
                  r.spec->name + " polled " + std::to_string(micros(now - *r.last_poll)) +
                      " us after the last poll while it is pending (min_poll_interval_us " +
                      std::to_string(micros(*min)) + ")");
    r.last_poll = now;
}

void TableDevice::write_bytes(uint8_t address, std::span<const uint8_t> bytes,
                              std::vector<Register*>& written) {
    for (size_t i = 0; i < bytes.size(); ++i) {
        auto at = static_cast<uint8_t>(address + i);
        auto [index, byte] = write_map_[at];
        if (index < 0) {
            protocol_error("write to " + hex(at) + ", which is no writable register");
            continue;
        }
        Register& r = registers_[static_cast<size_t>(index)];
        set_byte(r, byte, bytes[i]);
        r.value &= mask_of(*r.spec);
        if (std::find(written.begin(), written.end(), &r) == written.end())
            written.push_back(&r);
    }
    pointer_ = static_cast<uint8_t>(address + bytes.size());
}

void TableDevice::fire_writes(const std::vector<Register*>& written, uint8_t command,
                              bool is_command) {
    TimePoint now = clock_.now();
    for (const auto& rule : spec_.rules) {
        const RuleTrigger& t = rule.when;
        if (t.kind == RuleTrigger::Kind::command) {
            if (is_command && t.command == command)
                fire(rule, now);
            continue;
        }
        if (t.kind != RuleTrigger::Kind::write)
            continue;
        if (t.register_name == "*") {
            if (!written.empty() || is_command)
                fire(rule, now);
            continue;
        }
        for (const Register* r : written) {
            if (r->spec->name != t.register_name)
                continue;
            if ((t.value && r->value != *t.value) || (t.bits && (r->value & *t.bits) != *t.bits))
                continue;
            fire(rule, now);
        }
    }
}

bool TableDevice::write(std::span<const uint8_t> data) {
    if (data.empty())
        return true; // a zero-length write: an address probe
    apply_due();
    bool busy_now = false;
    if (!admit(false, busy_now))
        return false;
    if (busy_now)
        return true; // dropped: the chip is busy (its rule reads a fixed byte)
    std::vector<Register*> written;
    if (spec_.framing == Framing::register_pointer) {
        write_bytes(data[0], data.subspan(1), written);
        fire_writes(written, 0, false);
        return true;
    }
    auto command = std::find_if(spec_.commands.begin(), spec_.commands.end(),
                                [&](const CommandSpec& c) { return c.code == data[0]; });
    if (command == spec_.commands.end()) {
        protocol_error("unknown command " + hex(data[0]));
        return true;
    }
    if (!command->read.empty())
        pointer_ = reg(command->read)->spec->address;
    if (data.size() > 1) {
        if (command->write.empty())
            protocol_error("command " + hex(data[0]) + " takes no data, got " +
                           std::to_string(data.size() - 1) + " bytes");
        else
            write_bytes(reg(command->write)->spec->address, data.subspan(1), written);
        if (!command->read.empty())
            pointer_ = reg(command->read)->spec->address;
    }
    fire_writes(written, data[0], true);
    return true;
}

bool TableDevice::read(std::span<uint8_t> out) {
    if (out.empty())
        return true;
    apply_due();
    bool busy_now = false;
    if (!admit(true, busy_now))
        return false;
    if (busy_now) {
        std::fill(out.begin(), out.end(), busy_rule_ ? busy_rule_->busy_byte : 0xff);
        return true;
    }
    TimePoint now = clock_.now();
    // Each register read in this message, with the value its bytes come from (a queued read
    // value is taken once per message).
    std::vector<std::pair<Register*, uint64_t>> touched;
    for (size_t i = 0; i < out.size(); ++i) {
        auto at = static_cast<uint8_t>(pointer_ + i);
        auto [index, byte] = read_map_[at];
        if (index < 0) {
            out[i] = 0xff;
            protocol_error("read of " + hex(at) + ", which is no readable register");
            continue;
        }
        Register& r = registers_[static_cast<size_t>(index)];
        auto seen = std::find_if(touched.begin(), touched.end(),
                                 [&](const auto& t) { return t.first == &r; });
        if (seen == touched.end()) {
            check_poll(r, now);
            uint64_t value = r.queued.empty() ? r.value : r.queued.front();
            touched.emplace_back(&r, value);
            seen = touched.end() - 1;
        }
        out[i] = byte_of(r, seen->second, byte);
    }
    pointer_ = static_cast<uint8_t>(pointer_ + out.size());
    for (auto& [r, value] : touched) {
        if (!r->queued.empty())
            r->queued.pop_front();
        r->value &= ~r->spec->clear_on_read;
        for (const auto& rule : spec_.rules)
            if (rule.when.kind == RuleTrigger::Kind::read &&
                rule.when.register_name == r->spec->name)
                fire(rule, now);
    }
    return true;
}

std::optional<uint64_t> TableDevice::value(const std::string& name) {
    apply_due();
    if (Register* r = reg(name))
        return r->value;
    return std::nullopt;
}

} // namespace ksweep::device
