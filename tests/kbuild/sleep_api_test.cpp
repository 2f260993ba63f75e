// read_sleep_api() on tiny trees written here: each fact read from the function bodies and the
// documentation folder, whatever the comments, spacing and line breaks, and a note for every
// fact the tree does not state. fsleep() is not read here but evaluated with clang
// (tests/rewrite/sleep_eval_test.cpp): kbuild leaves it unknown and says so.
#include "core/file_io.h"
#include "kbuild/sleep_api.h"
#include "test_files.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

namespace fs = std::filesystem;
using namespace ksweep;
using namespace ksweep::kbuild;

namespace {

using test::write_file;

// Written for these tests: the shapes of the functions, not any tree's text.
const char* kDoubleRangeDelay = "#ifndef X\n"
                                "#define X\n"
                                "void usleep_range_state(unsigned long min, unsigned long max,\n"
                                "\t\t\tunsigned int state);\n"
                                "/* fsleep(x) { usleep_range(x, x + x / 4); } in a comment */\n"
                                "static inline void fsleep(unsigned long usecs)\n"
                                "{\n"
                                "\tif (usecs <= 10)\n"
                                "\t\tudelay(usecs);\n"
                                "\telse if (usecs <= 20000)\n"
                                "\t\tusleep_range(usecs, 2 * usecs);\n"
                                "\telse\n"
                                "\t\tmsleep(DIV_ROUND_UP(usecs, 1000));\n"
                                "}\n"
                                "#endif\n";

// The v6.13 shape with another parameter name, a call spread over lines and comments inside.
const char* kQuarterDelay = "#define USLEEP_RANGE_UPPER_BOUND ((TICK_NSEC << 2) / NSEC_PER_USEC)\n"
                            "// fsleep(us): usleep_range(us, 2 * us) before v6.13\n"
                            "static inline void\n"
                            "fsleep (unsigned long us)\n"
                            "{\n"
                            "\tif (us <= 10) {\n"
                            "\t\tudelay(us);\n"
                            "\t} else if (us < USLEEP_RANGE_UPPER_BOUND) {\n"
                            "\t\tusleep_range(us, /* 25 % */\n"
                            "\t\t\t     us + (us >> 2));\n"
                            "\t} else {\n"
                            "\t\tmsleep(DIV_ROUND_UP(us, 1000));\n"
                            "\t}\n"
                            "}\n";

const char* kMsleepExtra = "/*\n * msleep - sleep safely even with waitqueue interruptions\n"
                           " * (msecs_to_jiffies(msecs) in a comment)\n */\n"
                           "void msleep(unsigned int msecs)\n"
                           "{\n"
                           "\tunsigned long timeout = msecs_to_jiffies(msecs)\n"
                           "\t\t\t\t+ 1;\n"
                           "\n"
                           "\twhile (timeout)\n"
                           "\t\ttimeout = schedule_timeout_uninterruptible(timeout);\n"
                           "}\n"
                           "EXPORT_SYMBOL(msleep);\n"
                           "unsigned long msleep_interruptible(unsigned int msecs)\n"
                           "{\n\tunsigned long timeout = msecs_to_jiffies(msecs) + 1;\n"
                           "\treturn 0;\n}\n";

const char* kMsleepPlain = "void msleep(unsigned int ms)\n"
                           "{\n"
                           "\tunsigned long timeout = msecs_to_jiffies(ms); /* + 1 was here */\n"
                           "\twhile (timeout)\n"
                           "\t\ttimeout = schedule_timeout_uninterruptible(timeout);\n"
                           "}\n"
                           "unsigned long msleep_interruptible(unsigned int msecs)\n"
                           "{\n\treturn msecs_to_jiffies(msecs) + 1;\n}\n";

class KbuildSleepApiTest : public ::testing::Test {
  protected:
    TempDir tmp{"sleep-api"};
    fs::path root() const { return tmp.path(); }
};

TEST_F(KbuildSleepApiTest, ExtraJiffyAndTimersHowto) {
    write_file(root() / "include/linux/delay.h", kDoubleRangeDelay);
    write_file(root() / "kernel/time/timer.c", kMsleepExtra);
    write_file(root() / "Documentation/timers/timers-howto.rst", "Delays\n");
    SleepApi api = read_sleep_api(root());
    // Not read here, whatever its shape: evaluated elsewhere.
    EXPECT_EQ(api.fsleep, FsleepKind::Unknown);
    EXPECT_EQ(api.fsleep_note,
              "fsleep() is not read here: it is evaluated with the tree's headers");
    ASSERT_TRUE(api.msleep_extra_jiffy.has_value());
    EXPECT_TRUE(*api.msleep_extra_jiffy);
    EXPECT_EQ(api.msleep_source, "kernel/time/timer.c:7");
    EXPECT_TRUE(api.has_usleep_range_state);
    EXPECT_EQ(api.usleep_range_state_source, "include/linux/delay.h:3");
    EXPECT_EQ(api.timers_doc, "Documentation/timers/timers-howto.rst");
}

TEST_F(KbuildSleepApiTest, NoExtraJiffyInSleepTimeoutAndTheNewDocument) {
    write_file(root() / "include/linux/delay.h", kQuarterDelay);
    // v6.13 moved msleep() out of timer.c; a timer.c without it must not stop the search.
    write_file(root() / "kernel/time/timer.c", "void other(void)\n{\n\tmsleep(1);\n}\n");
    write_file(root() / "kernel/time/sleep_timeout.c", kMsleepPlain);
    write_file(root() / "Documentation/timers/delay_sleep_functions.rst", "Delay and sleep\n");
    write_file(root() / "Documentation/timers/timers-howto.rst", "Delays\n");
    SleepApi api = read_sleep_api(root());
    ASSERT_TRUE(api.msleep_extra_jiffy.has_value());
    EXPECT_FALSE(*api.msleep_extra_jiffy);
    EXPECT_EQ(api.msleep_source, "kernel/time/sleep_timeout.c:3");
    EXPECT_FALSE(api.has_usleep_range_state);
    EXPECT_EQ(api.usleep_range_state_source, "");
    EXPECT_NE(api.usleep_range_state_note, "");
    // The newer document wins when both are there.
    EXPECT_EQ(api.timers_doc, "Documentation/timers/delay_sleep_functions.rst");
}

TEST_F(KbuildSleepApiTest, NoDocumentIsSaid) {
    write_file(root() / "include/linux/delay.h", "void msleep(unsigned int msecs);\n");
    write_file(root() / "kernel/time/timer.c", kMsleepExtra);
    SleepApi api = read_sleep_api(root());
    EXPECT_EQ(api.timers_doc, "");
    EXPECT_NE(api.timers_doc_note.find("timers-howto.rst"), std::string::npos);
}

TEST_F(KbuildSleepApiTest, WhatTheTreeDoesNotSayIsUnknownWithAOneLineReason) {
    write_file(root() / "include/linux/delay.h", "void msleep(unsigned int msecs);\n");
    write_file(root() / "kernel/time/timer.c", "int x;\n");
    SleepApi api = read_sleep_api(root());
    EXPECT_FALSE(api.msleep_extra_jiffy.has_value());
    EXPECT_EQ(api.msleep_source, "");
    EXPECT_NE(api.msleep_note.find("defines msleep()"), std::string::npos) << api.msleep_note;
    for (const auto* note : {&api.fsleep_note, &api.msleep_note, &api.timers_doc_note})
        EXPECT_EQ(note->find('\n'), std::string::npos) << *note;

    TempDir empty{"sleep-api-empty"};
    SleepApi none = read_sleep_api(empty.path());
    EXPECT_EQ(none.fsleep, FsleepKind::Unknown);
    EXPECT_EQ(none.fsleep_note, "include/linux/delay.h is not in the tree: fsleep()'s slack is "
                                "unknown");
    EXPECT_NE(none.msleep_note.find("kernel/time/timer.c is not in the tree"), std::string::npos);
    SleepApi missing = read_sleep_api((empty.path() / "nope").string());
    EXPECT_NE(missing.fsleep_note.find("is not a directory"), std::string::npos);
}

TEST(KbuildSleepApiDetail, CommentsGoStringsStayLinesKeep) {
    using namespace sleep_api_detail;
    EXPECT_EQ(strip_comments("a /* b\nc */ d // e\nf \"/* g */\""),
              "a     \n     d     \nf \"/* g */\"");
    auto f =
        find_function("int f(int);\nEXPORT_SYMBOL(f);\nint f(int n)\n{\n\treturn {n};\n}\n", "f");
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->line, 3);
    EXPECT_EQ(f->param, "n");
    EXPECT_EQ(squeeze(f->body), "return{n};");
}

} // namespace
