#include "core/file_io.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

class ReadFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl = (fs::temp_directory_path() / "ksweep-file-io-XXXXXX").string();
        ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path write(const std::string& name, const std::string& bytes) {
        fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary) << bytes;
        return p;
    }

    fs::path dir_;
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

} // namespace
