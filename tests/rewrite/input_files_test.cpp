// The list of files a parse read (rewrite/input_files.h), which every cache entry made from a
// parse is trusted by: a changed file fails it, whatever its timestamps, and a list written after
// the process has checked a file records the file's content now, not what was checked.
#include "core/file_io.h"
#include "rewrite/input_files.h"
#include "test_files.h"

#include <chrono>
#include <gtest/gtest.h>

namespace ksweep {
namespace {

namespace fs = std::filesystem;

// Sets `file`'s modification time `ago` in the past: older than the racy window, so the list
// records it and trusts an equal one.
void age(const fs::path& file, std::chrono::seconds ago) {
    fs::last_write_time(file, fs::file_time_type::clock::now() - ago);
}

TEST(InputFiles, AChangedFileFailsTheListWhateverItsTime) {
    TempDir dir("input-files");
    const fs::path header = dir.path() / "a.h", list = dir.path() / "list";
    test::write_file(header, "#define A 1\n");
    age(header, std::chrono::seconds(60));
    ASSERT_TRUE(write_input_files(list, {header.string()}, now_ns()));
    EXPECT_TRUE(input_files_unchanged(list));
    test::write_file(header, "#define A 2\n"); // same size, another time
    EXPECT_FALSE(input_files_unchanged(list));
    EXPECT_FALSE(input_files_unchanged(dir.path() / "no-such-list"));
}

TEST(InputFiles, AListWrittenAfterACheckRecordsTheContentNow) {
    TempDir dir("input-files");
    const fs::path header = dir.path() / "b.h", first = dir.path() / "first",
                   second = dir.path() / "second";
    test::write_file(header, "#define B 1\n");
    age(header, std::chrono::seconds(120));
    ASSERT_TRUE(write_input_files(first, {header.string()}, now_ns()));
    ASSERT_TRUE(input_files_unchanged(first)); // the process has now seen b.h as it was
    test::write_file(header, "#define B 2\n");
    age(header, std::chrono::seconds(60));
    ASSERT_TRUE(write_input_files(second, {header.string()}, now_ns()));
    EXPECT_TRUE(input_files_unchanged(second));
    // Back to the first content, at another time: the second list must not hold it.
    test::write_file(header, "#define B 1\n");
    age(header, std::chrono::seconds(30));
    EXPECT_FALSE(input_files_unchanged(second));
    EXPECT_TRUE(input_files_unchanged(first));
}

} // namespace
} // namespace ksweep
