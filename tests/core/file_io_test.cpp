#include "core/file_io.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <optional>
#include <system_error>

namespace fs = std::filesystem;

namespace {

class ReadFileTest : public ::testing::Test {
  protected:
    fs::path write(const std::string& name, const std::string& bytes) {
        fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }

    ksweep::TempDir tmp_{"ksweep-file-io"};
    const fs::path dir_ = tmp_.path();
};

TEST_F(ReadFileTest, ReturnsTheWholeFile) {
    const std::string text = "line one\nline two\r\nno newline at end";
    EXPECT_EQ(ksweep::read_file(write("a.txt", text)), text);
}

TEST_F(ReadFileTest, EmptyFileIsAnEmptyStringNotAnError) {
    EXPECT_EQ(ksweep::read_file(write("empty", "")), std::string());
}

TEST_F(ReadFileTest, MissingFileIsNullopt) {
    EXPECT_EQ(ksweep::read_file(dir_ / "does-not-exist"), std::nullopt);
}

TEST_F(ReadFileTest, BinaryContentWithNulBytesIsKept) {
    const std::string bytes = {'\x7f', 'E', 'L', 'F', '\0', '\0', '\x01', '\xff', '\0', 'x'};
    auto got = ksweep::read_file(write("blob.ko", bytes));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->size(), 10u);
    EXPECT_EQ(*got, bytes);
}

TEST(MakeTempDir, EachCallIsANewDirectoryNamedByThePrefix) {
    const fs::path a = ksweep::make_temp_dir("ksweep-test");
    const fs::path b = ksweep::make_temp_dir("ksweep-test");
    EXPECT_NE(a, b);
    for (const fs::path& dir : {a, b}) {
        EXPECT_TRUE(fs::is_directory(dir)) << dir;
        EXPECT_TRUE(fs::is_empty(dir)) << dir;
        EXPECT_EQ(dir.parent_path(), fs::temp_directory_path());
        const std::string name = dir.filename().string();
        EXPECT_TRUE(name.starts_with("ksweep-test-")) << name;
        EXPECT_EQ(name.size(), std::string("ksweep-test-XXXXXX").size()) << name;
        fs::remove(dir);
    }
}

TEST(MakeTempDir, OnlyTheOwnerMayEnter) {
    const fs::path dir = ksweep::make_temp_dir("ksweep-test");
    EXPECT_EQ(fs::status(dir).permissions(), fs::perms::owner_all); // 0700
    fs::remove(dir);
}

// Sets an environment variable for one scope and puts the old value (or its absence) back.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name))
            old_ = old;
        setenv(name, value.c_str(), 1);
    }
    ~ScopedEnv() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(MakeTempDir, AMissingTmpdirIsOneErrorNamingThePatternAndTheCause) {
    ksweep::TempDir parent("ksweep-test");
    const fs::path missing = parent.path() / "no-such-dir";
    ScopedEnv tmpdir("TMPDIR", missing.string());
    try {
        ksweep::make_temp_dir("ksweep-test");
        FAIL() << "no error with TMPDIR=" << missing;
    } catch (const std::system_error& e) {
        EXPECT_EQ(e.code(), std::errc::no_such_file_or_directory);
        EXPECT_EQ(std::string(e.what()), "cannot create a temporary directory: " +
                                             (missing / "ksweep-test-XXXXXX").string() +
                                             ": No such file or directory");
    }
    EXPECT_TRUE(fs::is_empty(parent.path()));
}

TEST(TempDir, RemovesItsTreeUnlessReleased) {
    fs::path removed, kept;
    {
        ksweep::TempDir dir("ksweep-test");
        removed = dir.path();
        fs::create_directories(removed / "a/b");
        std::ofstream(removed / "a/b/file") << "text";
    }
    EXPECT_FALSE(fs::exists(removed));
    {
        ksweep::TempDir dir("ksweep-test");
        kept = dir.path();
        dir.release();
    }
    EXPECT_TRUE(fs::is_directory(kept));
    fs::remove(kept);
}

} // namespace
