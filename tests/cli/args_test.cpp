#include "cli/args.h"

#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace {

using ksweep::cli::ArgParser;

// parse() over argv = {"ksweep-test", args...}.
std::optional<int> parse(ArgParser& parser, std::vector<std::string> args) {
    args.insert(args.begin(), "ksweep-test");
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    return parser.parse(static_cast<int>(argv.size()), argv.data());
}

struct Fixture {
    int jobs = 0;
    int count = 0;
    std::string output;
    bool verbose = false;
    std::vector<std::string> positionals;
    ArgParser parser{"test", "[options] TREE", "A parser under test."};

    Fixture() {
        parser.option("-j", &jobs, "N", "jobs");
        parser.option("-n", &count, "N", "count");
        parser.option("--output", &output, "FILE", "output");
        parser.option("-o", &output, "FILE", "output");
        parser.flag("--verbose", &verbose, "verbose");
        parser.positionals(&positionals, 1);
    }
};

TEST(ArgParser, SeparateValueForShortOption) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"-j", "3", "tree"}), std::nullopt);
    EXPECT_EQ(f.jobs, 3);
}

TEST(ArgParser, AttachedValueForShortOption) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"-j1", "-n20", "-oreport.txt", "tree"}), std::nullopt);
    EXPECT_EQ(f.jobs, 1);
    EXPECT_EQ(f.count, 20);
    EXPECT_EQ(f.output, "report.txt");
    EXPECT_EQ(f.positionals, std::vector<std::string>{"tree"});
}

TEST(ArgParser, AttachedValueIsStillChecked) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"-jx", "tree"}), 2);
}

TEST(ArgParser, UnknownShortOptionWithTextIsStillRejected) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"-x1", "tree"}), 2);
}

// Only single-dash options take an attached value: "--output" + "x" is not "--outputx".
TEST(ArgParser, LongOptionDoesNotTakeAnAttachedValue) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"--outputx", "tree"}), 2);
    EXPECT_EQ(f.output, "");
}

TEST(ArgParser, LongOptionWithEquals) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"--output=a.txt", "tree"}), std::nullopt);
    EXPECT_EQ(f.output, "a.txt");
}

TEST(ArgParser, MissingValueIsAnError) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"tree", "-j"}), 2);
}

TEST(ArgParser, TooFewPositionalsIsAnError) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"-j2"}), 2);
}

} // namespace
