// What the semantic engine keeps between runs. Precompiled preambles (rewrite/preamble_cache.h):
// a file's header prefix is parsed once and kept; the next parse reads only the file's own code
// and finds the same values; a header edited since (even to the same size), a changed prefix or
// another flag makes it again; headers that do not parse are never kept, so the parse still
// reports their error; -include files are not included twice. Parse results
// (rewrite/parse_cache.h): a second parse of the same request with the same headers parses
// nothing; a header edited since, other text or another rule parses again; a parse that failed
// is kept with its error (on a missing header: until the header is there); what is kept gives back
// every site's loop (its iopoll shape too) and the other sleeps as the parse found them, another
// list of other sleeps parses again, and an entry that lacks a loop is parsed again rather than
// served.
#include "core/file_io.h"
#include "core/json.h"
#include "rewrite/semantic_engine.h"
#include "scan_test_support.h"
#include "test_files.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using namespace ksweep;
using ksweep::test::write_file;

namespace {

constexpr const char* kDriver = "#include <linux/delay.h>\n"
                                "#include \"local.h\"\n"
                                "\n"
                                "static void f(void)\n"
                                "{\n"
                                "\tmsleep(DELAY);\n"
                                "\tmsleep(LOCAL);\n"
                                "}\n";

struct PreambleTree {
    TempDir dir{"ksweep-preamble-test"};
    std::string tree = (dir.path() / "linux").string();
    std::string preambles = (dir.path() / "preambles").string();
    std::string content = kDriver;

    PreambleTree() {
        write_file(tree + "/include/linux/delay.h",
                   "#define DELAY 5\nvoid msleep(unsigned int msecs);\n");
        // Included again by the kernel's rules, it refuses: like compiler-version.h.
        write_file(tree + "/include/linux/forced.h",
                   "#ifdef FORCED_H\n#error included twice\n#endif\n#define FORCED_H\n");
        write_file(tree + "/drivers/foo/local.h", "#define LOCAL 3\n");
    }

    std::string results; // "" keeps no parse results

    SemanticScan parse() const {
        SemanticRequest r;
        r.result_dir = results;
        r.tree = tree;
        r.abs_path = tree + "/drivers/foo/foo.c";
        r.content = &content;
        r.args = {"-nostdinc",      "-I" + tree + "/drivers/foo",     "-I" + tree + "/include",
                  "-include",       tree + "/include/linux/forced.h", "-ferror-limit=1",
                  "-Wno-everything"};
        r.preamble_dir = preambles;
        look_for(r, ksweep::testing::msleep_rule());
        // What the lexical engine tells it: the calls whose argument is one name.
        for (const char* name : {"DELAY", "LOCAL"})
            if (size_t at = content.find("msleep(" + std::string(name) + ")");
                at != std::string::npos)
                r.single_names.emplace_back(static_cast<unsigned>(at), name);
        return semantic_scan(r);
    }
};

std::vector<std::optional<long long>> values(const SemanticScan& s) {
    std::vector<std::optional<long long>> out;
    for (const SemanticSite& site : s.sites)
        out.push_back(site.value);
    return out;
}

size_t preambles_kept(const std::string& dir) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        n += fs::exists(e.path() / "preamble.pch");
    return n;
}

} // namespace

TEST(PreambleTest, TheSecondParseReadsThePreambleAndFindsTheSameValues) {
    PreambleTree t;
    const SemanticScan first = t.parse();
    ASSERT_TRUE(first.parsed) << first.error;
    EXPECT_FALSE(first.preamble_reused);
    EXPECT_EQ(preambles_kept(t.preambles), 1u);
    const SemanticScan second = t.parse();
    ASSERT_TRUE(second.parsed) << second.error; // forced.h was not included a second time
    EXPECT_TRUE(second.preamble_reused);
    EXPECT_EQ(values(second), values(first));
    EXPECT_EQ(values(second), (std::vector<std::optional<long long>>{5, 3}));
    ASSERT_EQ(second.sites.size(), 2u);
    EXPECT_EQ(second.sites[0].name_kind, SemanticSite::Name::Macro);
    EXPECT_EQ(second.sites[0].defined_at, "include/linux/delay.h:1");

    // The code below the prefix changes: the same preamble serves.
    t.content += "static void g(void)\n{\n\tmsleep(DELAY + 1);\n}\n";
    const SemanticScan edited = t.parse();
    EXPECT_TRUE(edited.preamble_reused);
    EXPECT_EQ(values(edited), (std::vector<std::optional<long long>>{5, 3, 6}));
    EXPECT_EQ(preambles_kept(t.preambles), 1u);
}

// A module's module_init() and MODULE_DEVICE_TABLE() carry an alias attribute, whose Sema
// lookup would read the whole preamble (semantic_engine.cpp): the parse reads it as `unused`,
// with a preamble and without. Clang refuses an alias on a definition, so this file parses only
// when it is.
TEST(PreambleTest, AnAliasAttributeIsReadAsUnusedWithAPreambleAndWithout) {
    PreambleTree t;
    write_file(t.tree + "/drivers/foo/local.h",
               "#define LOCAL 3\n#define module_init(fn) int init_module(void) "
               "__attribute__((alias(#fn)))\n");
    t.content += "module_init(f);\nint g __attribute__((__alias__(\"f\"))) = 1;\n"
                 "int h __attribute__((alias(\"f\"))) = 2;\n";
    for (const char* run : {"made", "reused"}) {
        const SemanticScan s = t.parse();
        ASSERT_TRUE(s.parsed) << run << ": " << s.error;
        EXPECT_EQ(s.preamble_reused, std::string(run) == "reused");
        EXPECT_EQ(values(s), (std::vector<std::optional<long long>>{5, 3}));
    }
    t.preambles.clear();
    const SemanticScan without = t.parse();
    ASSERT_TRUE(without.parsed) << without.error;
    EXPECT_EQ(values(without), (std::vector<std::optional<long long>>{5, 3}));
}

// A prefix that fails on a missing header (an arch header on another arch's build dir) is not
// parsed again while the files it read are unchanged and the header still missing: the file's
// parse fails at once with the kept first error. Once the header is there, the file parses.
TEST(PreambleTest, APrefixFailingOnAMissingHeaderFailsAtOnceUntilTheHeaderIsThere) {
    PreambleTree t;
    t.content = "#include <asm/mach.h>\n" + std::string(kDriver);
    const SemanticScan first = t.parse();
    EXPECT_FALSE(first.parsed);
    EXPECT_NE(first.error.find("foo.c:1: 'asm/mach.h' file not found"), std::string::npos)
        << first.error;
    EXPECT_EQ(preambles_kept(t.preambles), 0u);
    // The kept failure is what the next parse says: marked here to tell it from a parse.
    fs::path failure;
    for (const auto& e : fs::directory_iterator(t.preambles))
        if (e.path().extension() == ".failed")
            failure = e.path() / "failure.json";
    ASSERT_FALSE(failure.empty());
    Json kept = Json::parse(read_file(failure).value_or("{}"));
    kept["error"] = first.error + " (kept)";
    write_file(failure.string(), kept.dump());
    const SemanticScan second = t.parse();
    EXPECT_FALSE(second.parsed);
    EXPECT_EQ(second.error, first.error + " (kept)");
    // A file it read changed: parsed again, the same error.
    write_file(t.tree + "/include/linux/forced.h",
               "#ifdef FORCED_H\n#error included twice\n#endif\n#define FORCED_H 1\n");
    EXPECT_EQ(t.parse().error, first.error);
    // The header is there but does not parse: that error, and the kept failure goes with it.
    write_file(t.tree + "/include/asm/mach.h", "int broken = ;\n");
    const SemanticScan broken = t.parse();
    EXPECT_FALSE(broken.parsed);
    EXPECT_NE(broken.error.find("mach.h:1"), std::string::npos) << broken.error;
    EXPECT_FALSE(fs::exists(failure.parent_path()));
    // The header parses: so does the file.
    write_file(t.tree + "/include/asm/mach.h", "\n");
    const SemanticScan later = t.parse();
    ASSERT_TRUE(later.parsed) << later.error;
    EXPECT_EQ(values(later), (std::vector<std::optional<long long>>{5, 3}));
}

TEST(PreambleTest, AHeaderEditedSinceMakesItAgainEvenAtTheSameSize) {
    PreambleTree t;
    ASSERT_TRUE(t.parse().parsed);
    write_file(t.tree + "/drivers/foo/local.h", "#define LOCAL 4\n");
    const SemanticScan after = t.parse();
    ASSERT_TRUE(after.parsed) << after.error;
    EXPECT_FALSE(after.preamble_reused);
    EXPECT_EQ(values(after), (std::vector<std::optional<long long>>{5, 4}));
    EXPECT_TRUE(t.parse().preamble_reused);
}

TEST(PreambleTest, AnotherPrefixIsAnotherPreamble) {
    PreambleTree t;
    ASSERT_TRUE(t.parse().parsed);
    t.content = "#define EXTRA 1\n" + std::string(kDriver);
    const SemanticScan other = t.parse();
    ASSERT_TRUE(other.parsed) << other.error;
    EXPECT_FALSE(other.preamble_reused);
    EXPECT_EQ(preambles_kept(t.preambles), 2u);
}

TEST(PreambleTest, HeadersThatDoNotParseAreNeverKeptAndTheParseSaysWhy) {
    PreambleTree t;
    write_file(t.tree + "/drivers/foo/local.h", "#define LOCAL 3\nint broken = ;\n");
    for (int run = 0; run < 2; ++run) {
        const SemanticScan s = t.parse();
        EXPECT_FALSE(s.parsed);
        EXPECT_FALSE(s.preamble_reused);
        EXPECT_NE(s.error.find("local.h:2"), std::string::npos) << s.error;
    }
    EXPECT_EQ(preambles_kept(t.preambles), 0u);
}

TEST(ParseCacheTest, TheSecondParseOfTheSameInputsParsesNothing) {
    PreambleTree t;
    t.results = (t.dir.path() / "parses").string();
    const SemanticScan first = t.parse();
    ASSERT_TRUE(first.parsed) << first.error;
    EXPECT_FALSE(first.from_cache);
    const SemanticScan second = t.parse();
    EXPECT_TRUE(second.from_cache);
    EXPECT_TRUE(second.parsed);
    EXPECT_EQ(values(second), values(first));
    ASSERT_EQ(second.sites.size(), first.sites.size());
    for (size_t i = 0; i < first.sites.size(); ++i) {
        EXPECT_EQ(second.sites[i].call_begin, first.sites[i].call_begin);
        EXPECT_EQ(second.sites[i].name_kind, first.sites[i].name_kind);
        EXPECT_EQ(second.sites[i].defined_at, first.sites[i].defined_at);
        EXPECT_EQ(second.sites[i].function, first.sites[i].function);
    }

    // A header the parse read, edited to the same size: parsed again, the new value.
    write_file(t.tree + "/include/linux/delay.h",
               "#define DELAY 7\nvoid msleep(unsigned int msecs);\n");
    const SemanticScan edited = t.parse();
    EXPECT_FALSE(edited.from_cache);
    EXPECT_EQ(values(edited), (std::vector<std::optional<long long>>{7, 3}));
    EXPECT_TRUE(t.parse().from_cache);

    // Other text of the file: parsed.
    t.content += "\n";
    EXPECT_FALSE(t.parse().from_cache);
}

// A parse that failed on a missing header is kept while the header is still missing; once it
// is in one of the places the parse looked, the file is parsed again.
TEST(ParseCacheTest, AParseThatFailedOnAMissingFileIsKeptUntilTheFileIsThere) {
    PreambleTree t;
    t.results = (t.dir.path() / "parses").string();
    t.content = "#include <linux/missing.h>\n#include \"near.h\"\n" + t.content;
    const SemanticScan first = t.parse();
    EXPECT_FALSE(first.parsed);
    EXPECT_FALSE(first.from_cache);
    EXPECT_NE(first.error.find("'linux/missing.h' file not found"), std::string::npos)
        << first.error;
    const SemanticScan second = t.parse();
    EXPECT_FALSE(second.parsed);
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.error, first.error);
    // The header appears in an include folder: the next parse finds it, and fails on the
    // next missing one, beside the file this time.
    write_file(t.tree + "/include/linux/missing.h", "\n");
    const SemanticScan found = t.parse();
    EXPECT_FALSE(found.from_cache);
    EXPECT_NE(found.error.find("'near.h' file not found"), std::string::npos) << found.error;
    EXPECT_TRUE(t.parse().from_cache);
    write_file(t.tree + "/drivers/foo/near.h", "\n");
    const SemanticScan both = t.parse();
    EXPECT_FALSE(both.from_cache);
    EXPECT_TRUE(both.parsed) << both.error;
}

// A parse that failed on the code it read is kept with its error, as a success is, until one of
// the files it read changes.
TEST(ParseCacheTest, AParseThatFailedOnItsCodeIsKeptWithItsErrorUntilAHeaderChanges) {
    PreambleTree t;
    t.results = (t.dir.path() / "parses").string();
    write_file(t.tree + "/drivers/foo/broken.h", "int broken(void) this is not C;\n");
    t.content = "#include \"broken.h\"\n" + t.content;
    const SemanticScan first = t.parse();
    ASSERT_FALSE(first.parsed);
    EXPECT_FALSE(first.from_cache);
    const SemanticScan second = t.parse();
    EXPECT_FALSE(second.parsed);
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.error, first.error);
    EXPECT_TRUE(second.sites.empty());
    write_file(t.tree + "/drivers/foo/broken.h", "int broken(void);\n");
    const SemanticScan mended = t.parse();
    EXPECT_TRUE(mended.parsed) << mended.error;
    EXPECT_FALSE(mended.from_cache);
}

namespace {

// The loop fixtures' poll loops (tests/fixtures/loops), with a loop around a usleep_range()
// added: sites whose loops have each iopoll shape, and another sleep in a loop.
struct LoopsParse {
    TempDir dir{"ksweep-parse-cache-loops-test"};
    std::string tree = std::string(KSWEEP_FIXTURES) + "/loops";
    std::string content;
    std::vector<std::string> other_sleeps{"usleep_range", "usleep_range_state", "fsleep"};

    LoopsParse() {
        content = read_file(tree + "/drivers/loops/poll.c").value();
        content += "\nstatic int poll_short(struct poll_dev *dev)\n"
                   "{\n"
                   "\tint tries = 7;\n"
                   "\n"
                   "\twhile (tries--) {\n"
                   "\t\tif (readl(dev->base) & POLL_DRDY)\n"
                   "\t\t\treturn 0;\n"
                   "\t\tusleep_range(100, 200);\n"
                   "\t}\n"
                   "\treturn -EBUSY;\n"
                   "}\n";
    }

    SemanticScan parse() const {
        SemanticRequest r;
        r.result_dir = (dir.path() / "parses").string();
        r.tree = tree;
        r.abs_path = tree + "/drivers/loops/poll.c";
        r.content = &content;
        r.args = {"-nostdinc", "-I" + tree + "/include", "-Wno-everything"};
        r.other_sleeps = other_sleeps;
        look_for(r, ksweep::testing::msleep_rule());
        return semantic_scan(r);
    }
};

std::string text_of(const std::optional<long long>& v) {
    return v ? std::to_string(*v) : "?";
}

// Every field of a loop, in one line.
std::string described(const LoopInfo& l) {
    std::ostringstream out;
    out << to_string(l.ends_by) << " " << l.statement << " line " << l.line << " tries "
        << text_of(l.tries) << " '" << l.tries_text << "' counter " << l.counter << " note '"
        << l.note << "' not_iopoll '" << l.not_iopoll << "'";
    if (l.waits_for)
        out << " waits " << l.waits_for->reader << " | " << l.waits_for->call << " | "
            << l.waits_for->value << " | " << l.waits_for->condition;
    if (const auto& p = l.iopoll) {
        out << " iopoll " << p->loop_begin << "-" << p->loop_end << " exit "
            << static_cast<int>(p->exit) << " success '" << p->success << "' test " << p->test_begin
            << "-" << p->test_end << " op " << p->op << "(";
        for (const std::string& a : p->args)
            out << a << ",";
        out << ") value " << p->value << " condition '" << p->condition << "' sleep_first "
            << p->sleep_first << " status " << p->status << " removals";
        for (const auto& [begin, end] : p->removals)
            out << " " << begin << "-" << end;
    }
    for (const auto& [hz, ms] : l.budget_ms_by_hz)
        out << " budget " << hz << ":" << ms;
    return out.str();
}

std::vector<std::string> described(const SemanticScan& s) {
    std::vector<std::string> out;
    for (const SemanticSite& site : s.sites)
        out.push_back("site " + std::to_string(site.call_begin) + " " + site.through + " " +
                      text_of(site.value) + " " + site.function + " " + described(site.loop));
    for (const OtherSleep& o : s.other_sleeps) {
        std::string args;
        for (const auto& a : o.args)
            args += text_of(a) + ",";
        out.push_back("other " + o.file + " " + std::to_string(o.call_begin) + " " + o.callee +
                      "(" + args + ") " + o.function + " " + described(o.loop));
    }
    return out;
}

std::vector<fs::path> kept_results(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.path().extension() == ".json")
            out.push_back(e.path());
    return out;
}

} // namespace

TEST(ParseCacheTest, KeptResultsGiveBackEveryLoopAndTheOtherSleeps) {
    LoopsParse t;
    const SemanticScan fresh = t.parse();
    ASSERT_TRUE(fresh.parsed) << fresh.error;
    ASSERT_FALSE(fresh.from_cache);
    // What the comparison must cover: loops of both iopoll exits, one without the shape, and
    // another sleep in a count-ended loop.
    size_t returns = 0, breaks = 0, not_iopoll = 0;
    for (const SemanticSite& site : fresh.sites) {
        EXPECT_NE(site.loop.ends_by, LoopEnd::Unknown) << site.function;
        if (site.loop.iopoll)
            (site.loop.iopoll->exit == IopollShape::Exit::Return ? returns : breaks) += 1;
        else if (site.loop.count_ended())
            not_iopoll += !site.loop.not_iopoll.empty();
    }
    EXPECT_GT(returns, 0u);
    EXPECT_GT(breaks, 0u);
    EXPECT_GT(not_iopoll, 0u);
    ASSERT_EQ(fresh.other_sleeps.size(), 1u);
    EXPECT_EQ(fresh.other_sleeps[0].callee, "usleep_range");
    EXPECT_EQ(fresh.other_sleeps[0].loop.ends_by, LoopEnd::Count);
    EXPECT_EQ(fresh.other_sleeps[0].loop.tries, 7);

    const SemanticScan kept = t.parse();
    EXPECT_TRUE(kept.from_cache);
    EXPECT_EQ(described(kept), described(fresh));
}

TEST(ParseCacheTest, AnotherListOfOtherSleepsParsesAgain) {
    LoopsParse t;
    ASSERT_TRUE(t.parse().parsed);
    ASSERT_TRUE(t.parse().from_cache);
    t.other_sleeps = {"fsleep"};
    const SemanticScan fewer = t.parse();
    EXPECT_FALSE(fewer.from_cache);
    EXPECT_TRUE(fewer.other_sleeps.empty());
    t.other_sleeps.clear();
    EXPECT_FALSE(t.parse().from_cache);
    t.other_sleeps = {"usleep_range", "usleep_range_state", "fsleep"};
    const SemanticScan again = t.parse();
    EXPECT_TRUE(again.from_cache);
    EXPECT_EQ(again.other_sleeps.size(), 1u);
}

TEST(ParseCacheTest, AKeptEntryWithoutItsLoopsIsParsedAgain) {
    LoopsParse t;
    const SemanticScan fresh = t.parse();
    ASSERT_TRUE(fresh.parsed) << fresh.error;
    const std::vector<fs::path> kept = kept_results(t.dir.path() / "parses");
    ASSERT_EQ(kept.size(), 1u);
    // An entry as a writer that knew no loops would leave it: every other field intact.
    Json j = Json::parse(read_file(kept[0]).value());
    ASSERT_FALSE(j.at("sites").empty());
    for (Json& site : j.at("sites"))
        site.erase("loop");
    std::ofstream(kept[0], std::ios::trunc) << j.dump();
    const SemanticScan again = t.parse();
    EXPECT_FALSE(again.from_cache);
    EXPECT_EQ(described(again), described(fresh));
}
