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

// git's --signoff is a flag: the next argument is not its value (it was taken as the name, so
// `series --signoff TREE PATH` lost TREE); --signoff=VALUE, and the older "NAME <EMAIL>"
// spelling after it, still give one.
TEST(ArgParser, AFlagWithAValueTakesItOnlyAttached) {
    bool given = false;
    std::string value;
    std::vector<std::string> positionals;
    ArgParser parser{"test", "[options] TREE", "A parser under test."};
    parser.flag_with_value("--signoff", &given, &value, "NAME <EMAIL>", "sign",
                           [](const std::string& v) { return v.find('<') != std::string::npos; });
    parser.positionals(&positionals, 1);
    EXPECT_EQ(parse(parser, {"--signoff", "linux", "drivers/char/tpm"}), std::nullopt);
    EXPECT_TRUE(given);
    EXPECT_EQ(value, "");
    EXPECT_EQ(positionals, (std::vector<std::string>{"linux", "drivers/char/tpm"}));

    positionals.clear();
    EXPECT_EQ(parse(parser, {"--signoff=A Person <a@example.org>", "linux"}), std::nullopt);
    EXPECT_EQ(value, "A Person <a@example.org>");
    EXPECT_EQ(positionals, std::vector<std::string>{"linux"});

    positionals.clear();
    value.clear();
    EXPECT_EQ(parse(parser, {"--signoff", "B Person <b@example.org>", "linux"}), std::nullopt);
    EXPECT_EQ(value, "B Person <b@example.org>");
    EXPECT_EQ(positionals, std::vector<std::string>{"linux"});
}

TEST(ArgParser, APlainFlagTakesNoValue) {
    Fixture f;
    EXPECT_EQ(parse(f.parser, {"--verbose=yes", "tree"}), 2);
}

TEST(ArgParser, ADeprecatedSpellingStillWorks) {
    std::string hz;
    std::vector<std::string> positionals;
    ArgParser parser{"test", "TREE", "A parser under test."};
    parser.option("--guest-hz", &hz, "LIST", "the guest kernels' HZ");
    parser.deprecated("--hz", "--guest-hz", "the guest kernels' HZ");
    parser.positionals(&positionals, 1);
    EXPECT_EQ(parse(parser, {"--hz", "250,1000", "tree"}), std::nullopt);
    EXPECT_EQ(hz, "250,1000");
    EXPECT_EQ(parser.options_help().find("--hz "), std::string::npos) << parser.options_help();
}

// Help re-flowed at 80 columns, every continuation line at the help column; a long name gets
// its help on the next line.
TEST(ArgParser, HelpIsWrappedWithItsIndentation) {
    std::string value;
    ArgParser parser{"test", "TREE", "A parser under test."};
    parser.option("--lava-artifacts-where", &value, "URL",
                  "where the lab fetches DIR/artifacts from (default file://DIR/artifacts), a\n"
                  "line long enough to be wrapped at least once more");
    parser.option("-o", &value, "DIR", "short");
    const std::string help = parser.options_help();
    EXPECT_EQ(help, "  --lava-artifacts-where URL\n"
                    "                           where the lab fetches DIR/artifacts from (default\n"
                    "                           file://DIR/artifacts), a line long enough to be\n"
                    "                           wrapped at least once more\n"
                    "  -o DIR                   short\n");
}

} // namespace
