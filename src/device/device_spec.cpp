#include "device/device_spec.h"

#include "core/yaml_checks.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>
#include <yaml-cpp/yaml.h>

namespace fs = std::filesystem;

namespace ksweep::device {

namespace {

using Yaml = YamlChecks<DeviceSpecError>;

// One file being read: its path for messages, the pieces read so far.
struct Reader {
    std::string path;

    [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
        Yaml::fail(path, node.Mark(), what);
    }

    std::string where(const YAML::Node& node) const {
        return path + ":" + std::to_string(node.Mark().line + 1);
    }

    std::string text(const YAML::Node& map, const char* key, const char* what) const {
        YAML::Node node = map[key];
        if (!node)
            fail(map, std::string(what) + " needs '" + key + "'");
        if (!node.IsScalar() || node.Scalar().empty())
            fail(node, std::string("'") + key + "' must be a non-empty string");
        return node.Scalar();
    }

    // 0x-prefixed hex or decimal, at most `max`.
    uint64_t number(const YAML::Node& node, const std::string& what, uint64_t max) const {
        std::string s = node.IsScalar() ? node.Scalar() : "";
        static const std::regex kNumber("0[xX][0-9a-fA-F]{1,16}|[0-9]{1,20}");
        if (std::regex_match(s, kNumber)) {
            try {
                uint64_t v =
                    std::stoull(s, nullptr, s.size() > 1 && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
                if (v <= max)
                    return v;
            } catch (const std::exception&) {
            }
        }
        char bound[32];
        std::snprintf(bound, sizeof bound, "%#llx", static_cast<unsigned long long>(max));
        fail(node, what + " must be a number from 0 to " + bound + " (0x.. or decimal)");
    }

    YAML::Node map(const YAML::Node& parent, const char* key, const char* what,
                   std::initializer_list<const char*> keys) const {
        YAML::Node node = parent[key];
        if (!node)
            fail(parent, std::string(what) + " needs '" + key + "'");
        Yaml::require_map(path, node, key);
        Yaml::reject_unknown_keys(path, node, keys);
        return node;
    }
};

const std::regex& kName() {
    static const std::regex name("[A-Za-z0-9_-]+");
    return name;
}

void require_name(const Reader& r, const YAML::Node& node, const std::string& value,
                  const char* what) {
    if (!std::regex_match(value, kName()))
        r.fail(node, "'" + value + "' is not " + what + " (letters, digits, '_' and '-')");
}

RegisterSpec read_register(const Reader& r, const YAML::Node& key, const YAML::Node& node) {
    RegisterSpec reg;
    reg.name = key.Scalar();
    require_name(r, key, reg.name, "a register name");
    reg.source = r.where(key);
    Yaml::require_map(r.path, node, ("register '" + reg.name + "'").c_str());
    Yaml::reject_unknown_keys(
        r.path, node, {"address", "width", "byte_order", "reset", "access", "clear_on_read"});
    if (!node["address"])
        r.fail(node, "register '" + reg.name + "' needs 'address'");
    reg.address = static_cast<uint8_t>(r.number(node["address"], "'address'", 0xff));
    if (node["width"])
        reg.width = static_cast<unsigned>(r.number(node["width"], "'width' (bytes)", 8));
    if (reg.width == 0)
        r.fail(node["width"], "'width' must be 1 to 8 bytes");
    if (reg.address + reg.width > 0x100)
        r.fail(node["address"], "register '" + reg.name + "' runs past address 0xff");
    if (auto order = node["byte_order"]) {
        std::string o = order.IsScalar() ? order.Scalar() : "";
        if (o != "big" && o != "little")
            r.fail(order, "'byte_order' must be big or little");
        reg.big_endian = o == "big";
    } else if (reg.width > 1) {
        r.fail(node, "register '" + reg.name + "' is " + std::to_string(reg.width) +
                         " bytes wide: say its byte_order (big or little)");
    }
    uint64_t max = reg.width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * reg.width)) - 1;
    if (node["reset"])
        reg.reset = r.number(node["reset"],
                             "'reset' of a " + std::to_string(reg.width) + "-byte register", max);
    if (node["clear_on_read"])
        reg.clear_on_read = r.number(node["clear_on_read"], "'clear_on_read'", max);
    if (auto access = node["access"]) {
        std::string a = access.IsScalar() ? access.Scalar() : "";
        if (a != "ro" && a != "rw" && a != "wo")
            r.fail(access, "'access' must be ro, rw or wo");
        reg.readable = a != "wo";
        reg.writable = a != "ro";
    }
    return reg;
}

// Registers may share byte addresses only as one read-only and one write-only register: the
// chip's separate read and write meaning of an address (srf08: command / software revision).
void check_overlaps(const Reader& r, const YAML::Node& registers,
                    const std::vector<RegisterSpec>& regs) {
    for (size_t i = 0; i < regs.size(); ++i)
        for (size_t j = 0; j < i; ++j) {
            const RegisterSpec &a = regs[i], &b = regs[j];
            bool overlap = a.address < b.address + b.width && b.address < a.address + a.width;
            bool split = (a.readable != b.readable) && (a.writable != b.writable) &&
                         (a.readable != a.writable) && (b.readable != b.writable);
            if (overlap && !split)
                r.fail(registers[a.name], "register '" + a.name + "' overlaps '" + b.name + "' (" +
                                              b.source +
                                              "): only a read-only and a write-only register "
                                              "may share an address");
        }
}

std::string register_ref(const Reader& r, const DeviceSpec& d, const YAML::Node& node,
                         bool any_allowed) {
    std::string name = node.IsScalar() ? node.Scalar() : "";
    if (any_allowed && name == "*")
        return name;
    if (!d.find_register(name))
        r.fail(node, "no register '" + name + "' in this file");
    return name;
}

std::map<std::string, uint64_t> register_values(const Reader& r, const DeviceSpec& d,
                                                const YAML::Node& node, const char* key) {
    std::map<std::string, uint64_t> out;
    if (!node)
        return out;
    Yaml::require_map(r.path, node, key);
    for (const auto& kv : node) {
        std::string name = register_ref(r, d, kv.first, false);
        const RegisterSpec& reg = *d.find_register(name);
        uint64_t max = reg.width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * reg.width)) - 1;
        out[name] = r.number(kv.second, std::string("'") + key + "' of " + name, max);
    }
    return out;
}

RuleTrigger read_trigger(const Reader& r, const DeviceSpec& d, const YAML::Node& rule) {
    YAML::Node when = rule["when"];
    if (!when)
        r.fail(rule, "a rule needs 'when' (write, read or command)");
    Yaml::require_map(r.path, when, "when");
    Yaml::reject_unknown_keys(r.path, when, {"write", "read", "command", "value", "bits"});
    RuleTrigger t;
    int kinds = !!when["write"] + !!when["read"] + !!when["command"];
    if (kinds != 1)
        r.fail(when, "'when' names exactly one of write, read, command");
    if (when["write"]) {
        t.kind = RuleTrigger::Kind::write;
        t.register_name = register_ref(r, d, when["write"], true);
    } else if (when["read"]) {
        t.kind = RuleTrigger::Kind::read;
        t.register_name = register_ref(r, d, when["read"], false);
    } else {
        t.kind = RuleTrigger::Kind::command;
        t.command = static_cast<uint8_t>(r.number(when["command"], "'command'", 0xff));
        bool known = std::any_of(d.commands.begin(), d.commands.end(),
                                 [&](const CommandSpec& c) { return c.code == t.command; });
        if (d.framing != Framing::command || !known)
            r.fail(when["command"], "no such command in 'commands'");
    }
    if ((when["value"] || when["bits"]) && t.kind != RuleTrigger::Kind::write)
        r.fail(when, "'value' and 'bits' qualify a write");
    if (when["value"] && when["bits"])
        r.fail(when, "give 'value' or 'bits', not both");
    if (when["value"])
        t.value = r.number(when["value"], "'value'", ~uint64_t{0});
    if (when["bits"])
        t.bits = r.number(when["bits"], "'bits'", ~uint64_t{0});
    return t;
}

RuleSpec read_rule(const Reader& r, const DeviceSpec& d, const YAML::Node& node) {
    Yaml::require_map(r.path, node, "a rule");
    Yaml::reject_unknown_keys(
        r.path, node,
        {"when", "after", "after_us", "set_bits", "clear_bits", "set", "reads", "busy"});
    RuleSpec rule;
    rule.source = r.where(node);
    rule.when = read_trigger(r, d, node);
    if (node["after"] && node["after_us"])
        r.fail(node, "give 'after' (a delay of the profile) or 'after_us', not both");
    if (auto after = node["after"]) {
        rule.delay = after.IsScalar() ? after.Scalar() : "";
        require_name(r, after, rule.delay, "a delay name");
    }
    if (auto after = node["after_us"])
        rule.after_ns = r.number(after, "'after_us'", 60'000'000) * 1000;
    rule.set_bits = register_values(r, d, node["set_bits"], "set_bits");
    rule.clear_bits = register_values(r, d, node["clear_bits"], "clear_bits");
    rule.set = register_values(r, d, node["set"], "set");
    if (auto reads = node["reads"]) {
        Yaml::require_map(r.path, reads, "reads");
        for (const auto& kv : reads) {
            std::string name = register_ref(r, d, kv.first, false);
            if (!kv.second.IsSequence() || kv.second.size() == 0 || kv.second.size() > 64)
                r.fail(kv.second, "'reads' of " + name + " must list 1 to 64 values");
            const RegisterSpec& reg = *d.find_register(name);
            uint64_t max = reg.width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * reg.width)) - 1;
            for (const auto& v : kv.second)
                rule.reads[name].push_back(r.number(v, "a value of 'reads'", max));
        }
    }
    if (auto busy = node["busy"]) {
        Yaml::require_map(r.path, busy, "busy");
        Yaml::reject_unknown_keys(r.path, busy, {"reads", "nack"});
        rule.busy = true;
        if (busy["reads"] && busy["nack"])
            r.fail(busy, "a busy chip either reads a value or NACKs, not both");
        if (busy["reads"])
            rule.busy_byte = static_cast<uint8_t>(r.number(busy["reads"], "'reads'", 0xff));
        else if (busy["nack"] && busy["nack"].IsScalar() && busy["nack"].Scalar() == "true")
            rule.busy_nack = true;
        else
            r.fail(busy, "'busy' needs 'reads: 0xNN' or 'nack: true'");
        if (rule.delay.empty() && !rule.after_ns)
            r.fail(busy, "a busy period needs 'after' or 'after_us': how long it lasts");
    }
    bool acts = !rule.set_bits.empty() || !rule.clear_bits.empty() || !rule.set.empty() ||
                !rule.reads.empty() || rule.busy;
    if (!acts)
        r.fail(node, "a rule needs an action: set_bits, clear_bits, set, reads or busy");
    return rule;
}

GuestOperation read_operation(const Reader& r, const YAML::Node& guest) {
    YAML::Node node =
        r.map(guest, "operation", "'guest'", {"read", "rtc_set_time", "device", "expect"});
    GuestOperation op;
    static const std::regex kSysfs("[A-Za-z0-9_:*.-]+(/[A-Za-z0-9_:*.-]+)*");
    static const std::regex kTime("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}");
    if (node["read"] && node["rtc_set_time"])
        r.fail(node, "an operation is either 'read' or 'rtc_set_time'");
    if (node["read"]) {
        op.kind = GuestOperation::Kind::read_attribute;
        op.target = r.text(node, "read", "'operation'");
        if (node["device"])
            r.fail(node["device"], "'device' belongs to rtc_set_time");
    } else if (node["rtc_set_time"]) {
        op.kind = GuestOperation::Kind::rtc_set_time;
        op.argument = r.text(node, "rtc_set_time", "'operation'");
        if (!std::regex_match(op.argument, kTime))
            r.fail(node["rtc_set_time"], "'rtc_set_time' must be YYYY-MM-DDTHH:MM:SS");
        op.target = r.text(node, "device", "rtc_set_time");
    } else {
        r.fail(node, "'operation' needs 'read' (a sysfs attribute) or 'rtc_set_time'");
    }
    // A path below the bound client, given to the guest on its command line.
    if (!std::regex_match(op.target, kSysfs) || op.target.find("..") != std::string::npos)
        r.fail(node, "'" + op.target +
                         "' is not a path below the client's sysfs directory (no '..', no "
                         "spaces)");
    op.expect = r.text(node, "expect", "'operation'");
    static const std::regex kValue("[A-Za-z0-9_:.+-]{1,64}");
    if (!std::regex_match(op.expect, kValue))
        r.fail(node["expect"], "'expect' must be one word of letters, digits and _:.+-");
    return op;
}

void read_guest(const Reader& r, DeviceSpec& d, const YAML::Node& root) {
    YAML::Node guest = r.map(root, "guest", "a device", {"config", "modules", "operation"});
    YAML::Node config = guest["config"];
    if (!config || !config.IsSequence() || config.size() == 0)
        r.fail(config ? config : guest, "'config' must list the tree's config symbols the driver "
                                        "needs (CONFIG_X=m)");
    static const std::regex kSymbol("CONFIG_[A-Za-z0-9_]+=(y|m)");
    for (const auto& c : config) {
        std::string line = c.IsScalar() ? c.Scalar() : "";
        if (!std::regex_match(line, kSymbol))
            r.fail(c, "'" + line + "' is not CONFIG_NAME=y or CONFIG_NAME=m");
        d.config.push_back(line);
    }
    YAML::Node modules = r.map(guest, "modules", "'guest'", {"directory", "load"});
    static const std::regex kDirectory("[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*");
    d.module_directory = r.text(modules, "directory", "'modules'");
    if (!std::regex_match(d.module_directory, kDirectory) ||
        d.module_directory.find("..") != std::string::npos)
        r.fail(modules["directory"], "'directory' must be a tree-relative path without '..'");
    YAML::Node load = modules["load"];
    if (!load || !load.IsSequence() || load.size() == 0)
        r.fail(load ? load : modules, "'load' must list the modules in load order");
    for (const auto& m : load) {
        std::string name = m.IsScalar() ? m.Scalar() : "";
        require_name(r, m, name, "a module name");
        if (std::find(d.modules.begin(), d.modules.end(), name) != d.modules.end())
            r.fail(m, "module '" + name + "' is listed twice");
        d.modules.push_back(name);
    }
    d.operation = read_operation(r, guest);
}

} // namespace

std::string GuestOperation::label() const {
    if (kind == Kind::rtc_set_time)
        return "RTC_SET_TIME";
    return "read " + target.substr(target.rfind('/') + 1);
}

const RegisterSpec* DeviceSpec::find_register(const std::string& name) const {
    for (const auto& r : registers)
        if (r.name == name)
            return &r;
    return nullptr;
}

std::vector<std::string> DeviceSpec::delay_names() const {
    std::set<std::string> names;
    for (const auto& rule : rules)
        if (!rule.delay.empty())
            names.insert(rule.delay);
    return {names.begin(), names.end()};
}

DeviceSpec parse_device_spec(const std::string& text, const std::string& path) {
    Reader r{path};
    YAML::Node root = Yaml::load(text, path);
    Yaml::require_map(path, root, "a device file");
    Yaml::reject_unknown_keys(path, root,
                              {"driver", "description", "subsystem", "i2c", "registers", "commands",
                               "rules", "guest", "profile"});
    DeviceSpec d;
    d.path = path;
    d.driver = r.text(root, "driver", "a device file");
    require_name(r, root["driver"], d.driver, "a driver name");
    d.description = r.text(root, "description", "a device file");
    d.subsystem = r.text(root, "subsystem", "a device file");

    YAML::Node i2c = r.map(root, "i2c", "a device file", {"address", "new_device", "framing"});
    d.address = static_cast<uint16_t>(r.number(i2c["address"], "'address'", 0x77));
    if (d.address < 0x08)
        r.fail(i2c["address"], "'address' must be a 7-bit address outside the reserved ranges "
                               "(0x08..0x77)");
    d.new_device = r.text(i2c, "new_device", "'i2c'");
    require_name(r, i2c["new_device"], d.new_device, "an I2C device id");
    std::string framing = r.text(i2c, "framing", "'i2c'");
    if (framing == "register")
        d.framing = Framing::register_pointer;
    else if (framing == "command")
        d.framing = Framing::command;
    else
        r.fail(i2c["framing"], "'framing' must be register (a register pointer byte) or command "
                               "(command bytes)");

    YAML::Node registers = root["registers"];
    if (!registers || !registers.IsMap() || registers.size() == 0)
        r.fail(registers ? registers : root, "a device file needs 'registers' (a mapping)");
    for (const auto& kv : registers) {
        if (d.find_register(kv.first.Scalar()))
            r.fail(kv.first, "register '" + kv.first.Scalar() + "' is listed twice");
        d.registers.push_back(read_register(r, kv.first, kv.second));
    }
    check_overlaps(r, registers, d.registers);

    if (auto commands = root["commands"]) {
        if (d.framing != Framing::command)
            r.fail(commands, "'commands' needs framing: command");
        Yaml::require_map(path, commands, "commands");
        for (const auto& kv : commands) {
            CommandSpec c;
            c.code = static_cast<uint8_t>(r.number(kv.first, "a command byte", 0xff));
            if (std::any_of(d.commands.begin(), d.commands.end(),
                            [&](const CommandSpec& o) { return o.code == c.code; }))
                r.fail(kv.first, "command " + kv.first.Scalar() + " is listed twice");
            Yaml::require_map(path, kv.second, "a command");
            Yaml::reject_unknown_keys(path, kv.second, {"read", "write"});
            if (kv.second["read"])
                c.read = register_ref(r, d, kv.second["read"], false);
            if (kv.second["write"])
                c.write = register_ref(r, d, kv.second["write"], false);
            d.commands.push_back(c);
        }
    } else if (d.framing == Framing::command) {
        r.fail(root, "framing: command needs 'commands'");
    }
    if (auto rules = root["rules"]) {
        if (!rules.IsSequence())
            r.fail(rules, "'rules' must be a list");
        for (const auto& rule : rules)
            d.rules.push_back(read_rule(r, d, rule));
    }
    read_guest(r, d, root);
    d.profile = (fs::path(path).parent_path() / r.text(root, "profile", "a device file"))
                    .lexically_normal()
                    .string();
    return d;
}

DeviceSpec load_device_spec(const std::string& path) {
    return parse_device_spec(Yaml::read_text(path, "device file"), path);
}

std::vector<DeviceSpec> load_device_specs(const std::string& directory) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(directory, ec))
        if (entry.path().extension() == ".yaml" && entry.is_regular_file())
            files.push_back(entry.path());
    if (ec)
        throw DeviceSpecError(directory + ": cannot list the device files: " + ec.message());
    std::sort(files.begin(), files.end());
    std::vector<DeviceSpec> specs;
    for (const auto& file : files)
        specs.push_back(load_device_spec(file.string()));
    return specs;
}

} // namespace ksweep::device
