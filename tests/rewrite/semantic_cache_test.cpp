// What the semantic engine keeps between runs. Precompiled preambles (rewrite/preamble_cache.h):
// a file's header prefix is parsed once and kept; the next parse reads only the file's own code
// and finds the same values; a header edited since (even to the same size), a changed prefix or
// another flag makes it again; headers that do not parse are never kept, so the parse still
// reports their error; -include files are not included twice. Parse results
// (rewrite/parse_cache.h): a second parse of the same request with the same headers parses
// nothing; a header edited since, other text or another rule parses again; a failed parse is
// never kept.
#include "core/file_io.h"
#include "rewrite/semantic_engine.h"
#include "scan_test_support.h"
#include "test_files.h"

#include <filesystem>
#include <gtest/gtest.h>

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

TEST(ParseCacheTest, AFailedParseIsNeverKept) {
    PreambleTree t;
    t.results = (t.dir.path() / "parses").string();
    t.content = "#include <linux/missing.h>\n" + t.content;
    for (int run = 0; run < 2; ++run) {
        const SemanticScan s = t.parse();
        EXPECT_FALSE(s.parsed);
        EXPECT_FALSE(s.from_cache);
    }
    // The header appears: the next parse finds it.
    write_file(t.tree + "/include/linux/missing.h", "\n");
    EXPECT_TRUE(t.parse().parsed);
}
