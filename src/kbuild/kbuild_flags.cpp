// A small reader of kbuild files: enough of make's syntax (assignments, continuation lines,
// comments, conditionals, include, define blocks, recipes) to know which objects a Makefile
// builds and what its ccflags-y, subdir-ccflags-y and CFLAGS_<object> hold. It expands
// $(srctree), $(src), $(obj) and the file's own variables; anything else (functions, $(CC),
// variables kbuild sets elsewhere) is not expanded, and a flag that needs it is left out.
#include "kbuild/kbuild_flags.h"

#include "core/file_io.h"
#include "core/strings.h"
#include "kbuild/makefile_lines.h"

#include <filesystem>
#include <set>
#include <string_view>

namespace fs = std::filesystem;

namespace ksweep::kbuild {

namespace {

// What make strips around words: a carriage return is text to it.
constexpr std::string_view kMakeBlanks = " \t";

// Stands for a reference that could not be expanded; a word holding it is dropped.
constexpr char kUnknown = '\x01';

enum class Tri { False, True, Unknown };

Tri tri_or(Tri a, Tri b) {
    if (a == Tri::True || b == Tri::True)
        return Tri::True;
    if (a == Tri::Unknown || b == Tri::Unknown)
        return Tri::Unknown;
    return Tri::False;
}

// Shell-style words of an expanded command-line fragment (make hands ccflags to the shell):
// quotes group and go away, a backslash escapes the next character.
std::vector<std::string> shell_words(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == ' ' || c == '\t') {
            if (in_word)
                words.push_back(std::move(word));
            word.clear();
            in_word = false;
        } else if (c == '\'') {
            size_t close = text.find('\'', i + 1);
            if (close == std::string::npos)
                return words; // unbalanced: the rest is not trusted
            word += text.substr(i + 1, close - i - 1);
            i = close;
            in_word = true;
        } else if (c == '"') {
            size_t k = i + 1;
            for (; k < text.size() && text[k] != '"'; ++k) {
                if (text[k] == '\\' && k + 1 < text.size() &&
                    std::string_view("\"\\$`").find(text[k + 1]) != std::string_view::npos)
                    ++k;
                word += text[k];
            }
            if (k >= text.size())
                return words;
            i = k;
            in_word = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            word += text[++i];
            in_word = true;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word)
        words.push_back(std::move(word));
    return words;
}

// Index of the ')' or '}' closing the reference opened at text[open], or npos.
size_t closing(std::string_view text, size_t open) {
    char o = text[open], c = o == '(' ? ')' : '}';
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
        if (text[i] == o)
            ++depth;
        else if (text[i] == c && --depth == 0)
            return i;
    }
    return std::string_view::npos;
}

struct Variable {
    std::string value;
    bool recursive = true; // '=': expanded when used; ':=': expanded when assigned
};

// Where a reference is expanded. In a variable's name (ccflags-$(CONFIG_X)) and in a
// conditional, a CONFIG_ option counts as enabled: "y".
enum class Context { Value, Name, Condition };

} // namespace

struct KbuildFlags::Makefile {
    bool exists = false;
    std::set<std::string> objects; // every "x.o" word of every assignment, in any branch
    std::vector<std::string> subdir_ccflags, ccflags;
    std::map<std::string, std::vector<std::string>> object_cflags; // CFLAGS_<object> by object

    // Names an object under `prefix`, e.g. "hns3pf/" for the files of that subdirectory.
    bool names_objects_under(const std::string& prefix) const {
        auto it = objects.lower_bound(prefix);
        return it != objects.end() && it->starts_with(prefix);
    }
};

namespace {

// Reads one kbuild file (and what it includes) the way make would for the directory `dir`.
class Reader {
  public:
    Reader(const std::string& tree, const std::string& dir, std::size_t& files_read)
        : tree_(tree), files_read_(files_read) {
        vars_["srctree"] = {tree, false};
        vars_["src"] = {dir, false};
        vars_["obj"] = {dir, false};
    }

    void read(const fs::path& path, int depth = 0) {
        auto text = read_file(path);
        if (!text)
            return;
        ++files_read_;
        bool in_rule = false; // after a rule line, tab-led lines are its recipe
        bool in_define = false;
        for (const std::string& line : logical_lines(*text, EscapedHash::resolve)) {
            if (in_define) {
                if (trim(line, kMakeBlanks) == "endef")
                    in_define = false;
                continue;
            }
            if (trim(line, kMakeBlanks).empty())
                continue;
            if (line[0] == '\t' && in_rule)
                continue;
            in_rule = false;
            std::string l = trim(line, kMakeBlanks);
            std::string word = l.substr(0, l.find_first_of(" \t("));
            if (word == "ifeq" || word == "ifneq" || word == "ifdef" || word == "ifndef") {
                Tri c = condition(word, trim(std::string_view(l).substr(word.size()), kMakeBlanks));
                stack_.push_back({c, c});
                continue;
            }
            if (word == "else") {
                if (stack_.empty())
                    continue;
                auto& level = stack_.back();
                std::string rest = trim(std::string_view(l).substr(4), kMakeBlanks);
                std::string w = rest.substr(0, rest.find_first_of(" \t("));
                Tri c =
                    rest.empty()
                        ? Tri::True
                        : condition(w, trim(std::string_view(rest).substr(w.size()), kMakeBlanks));
                if (level.taken == Tri::True)
                    level.branch = Tri::False;
                else if (level.taken == Tri::False)
                    level.branch = c;
                else
                    level.branch = c == Tri::False ? Tri::False : Tri::Unknown;
                level.taken = tri_or(level.taken, c);
                continue;
            }
            if (word == "endif") {
                if (!stack_.empty())
                    stack_.pop_back();
                continue;
            }
            if (word == "define") {
                in_define = true;
                continue;
            }
            if (word == "include" || word == "-include" || word == "sinclude") {
                if (active() == Tri::True && depth < 8)
                    include(std::string_view(l).substr(word.size()), depth);
                continue;
            }
            if (word == "export" || word == "override" || word == "unexport" ||
                word == "undefine" || word == "vpath") {
                if (word == "export" || word == "override")
                    l = trim(std::string_view(l).substr(word.size()), kMakeBlanks);
                else
                    continue;
            }
            if (!assignment(l))
                in_rule = l.find(':') != std::string::npos; // a rule: recipes may follow
        }
    }

    KbuildFlags::Makefile result() {
        KbuildFlags::Makefile m;
        m.exists = true;
        m.objects = std::move(objects_);
        m.subdir_ccflags = flags("subdir-ccflags-y");
        m.ccflags = flags("ccflags-y");
        // scripts/Makefile.lib: ccflags-y += $(EXTRA_CFLAGS), the older spelling.
        auto extra = flags("EXTRA_CFLAGS");
        m.ccflags.insert(m.ccflags.end(), extra.begin(), extra.end());
        for (const auto& [name, var] : vars_)
            if (name.starts_with("CFLAGS_") && name.ends_with(".o") &&
                !name.starts_with("CFLAGS_REMOVE_"))
                m.object_cflags[name.substr(7)] = flags(name);
        return m;
    }

  private:
    struct Level {
        Tri branch; // is the current branch taken?
        Tri taken;  // was this or an earlier branch taken?
    };

    Tri active() const {
        Tri a = Tri::True;
        for (const auto& level : stack_) {
            if (level.branch == Tri::False)
                return Tri::False;
            if (level.branch == Tri::Unknown)
                a = Tri::Unknown;
        }
        return a;
    }

    // make's expansion, with kUnknown for what this reader cannot know.
    std::string expand(std::string_view text, Context context, int depth = 0) {
        if (depth > 32)
            return std::string(1, kUnknown);
        std::string out;
        for (size_t i = 0; i < text.size(); ++i) {
            if (text[i] != '$') {
                out += text[i];
                continue;
            }
            if (i + 1 >= text.size()) {
                out += kUnknown;
                break;
            }
            char next = text[i + 1];
            if (next == '$') {
                out += '$';
                ++i;
                continue;
            }
            if (next != '(' && next != '{') { // $@, $<, $X: not ours
                out += kUnknown;
                ++i;
                continue;
            }
            size_t close = closing(text, i + 1);
            if (close == std::string_view::npos) {
                out += kUnknown;
                break;
            }
            out += reference(text.substr(i + 2, close - i - 2), context, depth);
            i = close;
        }
        return out;
    }

    std::string reference(std::string_view name, Context context, int depth) {
        // Functions ($(call ...), $(shell ...)), substitution references, computed names.
        if (name.empty() || name.find_first_of(" \t,:$=") != std::string_view::npos)
            return std::string(1, kUnknown);
        auto var = vars_.find(std::string(name));
        if (var != vars_.end())
            return var->second.recursive ? expand(var->second.value, context, depth + 1)
                                         : var->second.value;
        // ccflags-$(CONFIG_X), ifdef CONFIG_X: the option is taken as enabled, so the flags
        // of every configuration count (the scan covers the whole tree, not one .config).
        if (context != Context::Value && name.starts_with("CONFIG_")) {
            used_config_ = true;
            return "y";
        }
        return std::string(1, kUnknown);
    }

    // The condition of ifeq/ifneq/ifdef/ifndef; Unknown when it depends on what we cannot
    // expand, or on a CONFIG_ option's value other than y/m/empty.
    Tri condition(const std::string& kind, std::string_view args) {
        used_config_ = false;
        Tri result = Tri::Unknown;
        if (kind == "ifdef" || kind == "ifndef") {
            std::string name = expand(trim(args, kMakeBlanks), Context::Name);
            auto var = vars_.find(name);
            if (name.find(kUnknown) != std::string::npos)
                result = Tri::Unknown;
            else if (name.starts_with("CONFIG_"))
                result = Tri::True;
            else if (var != vars_.end()) {
                std::string value = var->second.recursive
                                        ? expand(var->second.value, Context::Condition)
                                        : var->second.value;
                result = value.find(kUnknown) != std::string::npos ? Tri::Unknown
                         : value.empty()                           ? Tri::False
                                                                   : Tri::True;
            }
            if (kind == "ifndef" && result != Tri::Unknown)
                result = result == Tri::True ? Tri::False : Tri::True;
            return result;
        }
        if (kind != "ifeq" && kind != "ifneq")
            return Tri::Unknown;
        std::string a, b;
        if (!args.empty() && args.front() == '(' && args.back() == ')') {
            std::string_view inner = args.substr(1, args.size() - 2);
            int depth = 0;
            size_t comma = std::string_view::npos;
            for (size_t i = 0; i < inner.size() && comma == std::string_view::npos; ++i) {
                if (inner[i] == '(' || inner[i] == '{')
                    ++depth;
                else if (inner[i] == ')' || inner[i] == '}')
                    --depth;
                else if (inner[i] == ',' && depth == 0)
                    comma = i;
            }
            if (comma == std::string_view::npos)
                return Tri::Unknown;
            a = trim(inner.substr(0, comma), kMakeBlanks);
            b = trim(inner.substr(comma + 1), kMakeBlanks);
        } else {
            auto words = shell_words(std::string(args)); // "a" "b" or 'a' 'b'
            if (words.size() != 2)
                return Tri::Unknown;
            a = words[0];
            b = words[1];
        }
        a = trim(expand(a, Context::Condition), kMakeBlanks);
        b = trim(expand(b, Context::Condition), kMakeBlanks);
        if (a.find(kUnknown) != std::string::npos || b.find(kUnknown) != std::string::npos)
            return Tri::Unknown;
        auto tristate = [](const std::string& v) { return v.empty() || v == "y" || v == "m"; };
        if (used_config_ && !(tristate(a) && tristate(b)))
            return Tri::Unknown;
        bool equal = a == b;
        return (kind == "ifeq") == equal ? Tri::True : Tri::False;
    }

    void include(std::string_view args, int depth) {
        for (const auto& word : shell_words(expand(args, Context::Value))) {
            if (word.find(kUnknown) != std::string::npos)
                continue;
            fs::path p(word);
            // make runs from the tree root: relative paths are the tree's.
            read(p.is_absolute() ? p : fs::path(tree_) / p, depth + 1);
        }
    }

    // NAME op VALUE; false when the line is not an assignment.
    bool assignment(const std::string& line) {
        size_t i = 0;
        int depth = 0;
        for (; i < line.size(); ++i) {
            char c = line[i];
            if (c == '(' || c == '{')
                ++depth;
            else if (c == ')' || c == '}')
                --depth;
            else if (depth == 0 && (c == '=' || c == ':'))
                break;
        }
        if (i >= line.size())
            return false;
        std::string op;
        size_t name_end = i, value_begin = i + 1;
        if (line[i] == ':') {
            if (line.compare(i, 2, ":=") == 0)
                op = ":=", value_begin = i + 2;
            else if (line.compare(i, 3, "::=") == 0)
                op = ":=", value_begin = i + 3;
            else
                return false; // a rule
        } else if (i > 0 && (line[i - 1] == '+' || line[i - 1] == '?' || line[i - 1] == '!')) {
            op = std::string(1, line[i - 1]) + "=";
            name_end = i - 1;
        } else {
            op = "=";
        }
        std::string name =
            trim(expand(trim(line.substr(0, name_end), kMakeBlanks), Context::Name), kMakeBlanks);
        std::string raw = trim(std::string_view(line).substr(value_begin), kMakeBlanks);
        Tri active_now = active();

        // Objects, in whatever branch: which Makefile builds a file does not depend on the
        // configuration.
        for (const auto& w : shell_words(expand(raw, Context::Value)))
            if (w.ends_with(".o") && w.find(kUnknown) == std::string::npos)
                objects_.insert(w.starts_with("./") ? w.substr(2) : w);

        if (name.empty() || name.find(kUnknown) != std::string::npos ||
            name.find_first_of(" \t") != std::string::npos || active_now == Tri::False)
            return true;
        if (op == "!=") { // a shell command's output
            vars_[name] = {std::string(1, kUnknown), false};
            return true;
        }
        auto var = vars_.find(name);
        if (active_now == Tri::Unknown) {
            // A branch we cannot decide: an append may not happen (leave it out), an
            // assignment leaves the variable unknown.
            if (op != "+=")
                vars_[name] = {std::string(1, kUnknown), false};
            return true;
        }
        if (op == "?=") {
            if (var == vars_.end())
                vars_[name] = {raw, true};
        } else if (op == ":=") {
            vars_[name] = {expand(raw, Context::Value), false};
        } else if (op == "=" || var == vars_.end()) { // "=", or += on an undefined variable
            vars_[name] = {raw, true};
        } else {
            std::string added = var->second.recursive ? raw : expand(raw, Context::Value);
            if (!var->second.value.empty() && !added.empty())
                var->second.value += ' ';
            var->second.value += added;
        }
        return true;
    }

    // The -I, -D, -U and -include flags of a variable; include paths made absolute (make runs
    // from the tree root), flags whose text could not be expanded left out.
    std::vector<std::string> flags(const std::string& name) {
        auto var = vars_.find(name);
        if (var == vars_.end())
            return {};
        std::string text =
            var->second.recursive ? expand(var->second.value, Context::Value) : var->second.value;
        auto words = shell_words(text);
        auto known = [](const std::string& w) { return w.find(kUnknown) == std::string::npos; };
        auto absolute = [&](const std::string& p) {
            fs::path path(p);
            return (path.is_absolute() ? path : fs::path(tree_) / path).lexically_normal().string();
        };
        std::vector<std::string> out;
        for (size_t i = 0; i < words.size(); ++i) {
            const std::string& w = words[i];
            bool separate = w == "-I" || w == "-D" || w == "-U" || w == "-include";
            std::string arg;
            if (separate) {
                if (i + 1 >= words.size())
                    break;
                arg = words[++i];
            } else if (w.starts_with("-I") || w.starts_with("-D") || w.starts_with("-U")) {
                arg = w.substr(2);
            } else {
                continue; // -W..., -O..., anything not the preprocessor's
            }
            if (!known(w) || !known(arg) || arg.empty())
                continue;
            if (w == "-include") {
                // Relative to the working directory, the tree root. A header the tree does
                // not have is a generated one ($(obj)/...): asking for it would fail the parse.
                std::string in_tree = absolute(arg);
                if (fs::exists(in_tree))
                    out.insert(out.end(), {"-include", in_tree});
            } else if (w.starts_with("-I")) {
                if (arg != "-")
                    out.push_back("-I" + absolute(arg));
            } else {
                out.push_back(w.substr(0, 2) + arg);
            }
        }
        return out;
    }

    const std::string& tree_;
    std::size_t& files_read_;
    std::map<std::string, Variable> vars_;
    std::set<std::string> objects_;
    std::vector<Level> stack_;
    bool used_config_ = false;
};

// The tree-relative directories from the root down: "a/b/c" -> ".", "a", "a/b", "a/b/c".
std::vector<std::string> ancestry(const std::string& dir) {
    std::vector<std::string> out{"."};
    if (dir.empty() || dir == ".")
        return out;
    std::string path;
    for (const auto& part : fs::path(dir)) {
        path = path.empty() ? part.string() : path + "/" + part.string();
        out.push_back(path);
    }
    return out;
}

} // namespace

KbuildFlags::KbuildFlags(std::string tree) : tree_(std::move(tree)) {
    while (tree_.size() > 1 && tree_.back() == '/')
        tree_.pop_back();
}

KbuildFlags::~KbuildFlags() = default;

const KbuildFlags::Makefile& KbuildFlags::makefile(const std::string& dir) const {
    auto found = cache_.find(dir);
    if (found != cache_.end())
        return *found->second;
    // kbuild reads Kbuild when there is one, else Makefile; at the tree root only Kbuild (the
    // top Makefile is not a kbuild file).
    fs::path base = dir == "." ? fs::path(tree_) : fs::path(tree_) / dir;
    std::error_code ec;
    auto m = std::make_unique<Makefile>();
    for (const char* name : {"Kbuild", "Makefile"}) {
        if (dir == "." && std::string_view(name) == "Makefile")
            break;
        if (fs::is_regular_file(base / name, ec)) {
            Reader reader(tree_, dir, files_read_);
            reader.read(base / name);
            *m = reader.result();
            break;
        }
    }
    return *cache_.emplace(dir, std::move(m)).first->second;
}

std::optional<std::string> KbuildFlags::owner_locked(const std::string& rel_path,
                                                     std::string* object) const {
    fs::path rel = fs::path(rel_path).lexically_normal();
    std::string dir = rel.parent_path().generic_string();
    if (dir.empty())
        dir = ".";
    auto dirs = ancestry(dir);
    // kbuild builds dir/sub/x.c from dir/sub's Makefile (x.o) or from an ancestor's that
    // names sub/x.o (a composite object's list): the nearest that names it.
    const bool c_file = rel.extension() == ".c";
    const std::string stem = rel.stem().string();
    for (auto it = dirs.rbegin(); c_file && it != dirs.rend(); ++it) {
        std::string sub = fs::path(dir).lexically_relative(*it).generic_string();
        std::string obj = (sub == "." ? "" : sub + "/") + stem + ".o";
        if (makefile(*it).objects.count(obj)) {
            *object = obj;
            return *it;
        }
    }
    // A header, or a file no list names (included by another, or named through a function):
    // the directory's own Makefile, else the nearest ancestor's that builds objects there.
    object->clear();
    if (makefile(dir).exists)
        return dir;
    for (auto it = dirs.rbegin() + 1; it != dirs.rend(); ++it) {
        std::string sub = fs::path(dir).lexically_relative(*it).generic_string();
        if (makefile(*it).names_objects_under(sub + "/"))
            return *it;
    }
    return std::nullopt;
}

std::optional<std::string> KbuildFlags::owner(const std::string& rel_path) const {
    std::lock_guard lock(mutex_);
    std::string object;
    return owner_locked(rel_path, &object);
}

std::vector<std::string> KbuildFlags::for_file(const std::string& rel_path) const {
    std::lock_guard lock(mutex_);
    std::string object;
    auto dir = owner_locked(rel_path, &object);
    if (!dir)
        return {};
    std::vector<std::string> out;
    // subdir-ccflags-y add up on the way down (KBUILD_CFLAGS is passed to each sub-make).
    for (const auto& d : ancestry(*dir)) {
        const auto& flags = makefile(d).subdir_ccflags;
        out.insert(out.end(), flags.begin(), flags.end());
    }
    const Makefile& m = makefile(*dir);
    out.insert(out.end(), m.ccflags.begin(), m.ccflags.end());
    auto own = m.object_cflags.find(object);
    if (own != m.object_cflags.end())
        out.insert(out.end(), own->second.begin(), own->second.end());
    return out;
}

std::size_t KbuildFlags::files_read() const {
    std::lock_guard lock(mutex_);
    return files_read_;
}

} // namespace ksweep::kbuild
