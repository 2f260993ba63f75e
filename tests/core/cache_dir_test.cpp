#include "core/cache_dir.h"
#include "core/data_dir.h"

#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <optional>
#include <string>

namespace {

// Sets an environment variable for one test and puts the old value back.
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name))
            old_ = old;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }

  private:
    const char* name_;
    std::optional<std::string> old_;
};

TEST(CacheDir, KsweepCacheWins) {
    ScopedEnv cache("KSWEEP_CACHE", "/somewhere/cache");
    EXPECT_EQ(ksweep::cache_dir(), "/somewhere/cache");
}

TEST(CacheDir, DefaultsToHomeDotCacheLikeSetupSh) {
    ScopedEnv cache("KSWEEP_CACHE", nullptr);
    ScopedEnv home("HOME", "/home/maintainer");
    EXPECT_EQ(ksweep::cache_dir(), "/home/maintainer/.cache/ksweep");
}

TEST(CacheDir, EmptyKsweepCacheMeansUnset) {
    ScopedEnv cache("KSWEEP_CACHE", "");
    ScopedEnv home("HOME", "/home/maintainer");
    EXPECT_EQ(ksweep::cache_dir(), "/home/maintainer/.cache/ksweep");
}

// scripts/setup.sh ignores XDG_CACHE_HOME; ksweep must look where setup wrote.
TEST(CacheDir, XdgCacheHomeIsNotConsulted) {
    ScopedEnv cache("KSWEEP_CACHE", nullptr);
    ScopedEnv home("HOME", "/home/maintainer");
    ScopedEnv xdg("XDG_CACHE_HOME", "/elsewhere");
    EXPECT_EQ(ksweep::cache_dir(), "/home/maintainer/.cache/ksweep");
}

// The shipped data: the source tree ksweep was built from, unless KSWEEP_DATA_DIR says where
// a relocated copy is.
TEST(DataDir, ShippedRulesAreFoundInTheBuiltFromTree) {
    ScopedEnv data("KSWEEP_DATA_DIR", nullptr);
    EXPECT_TRUE(std::filesystem::exists(ksweep::data_file("rules/msleep_small.yaml")));
    EXPECT_EQ(ksweep::data_file("rules/msleep_small.yaml"),
              std::string(KSWEEP_SOURCE_DIR) + "/rules/msleep_small.yaml");
}

TEST(DataDir, KsweepDataDirWinsAndEmptyMeansUnset) {
    {
        ScopedEnv data("KSWEEP_DATA_DIR", "/opt/ksweep");
        EXPECT_EQ(ksweep::data_file("rules/subject_prefixes.yaml"),
                  "/opt/ksweep/rules/subject_prefixes.yaml");
    }
    ScopedEnv empty("KSWEEP_DATA_DIR", "");
    EXPECT_EQ(ksweep::data_file("rules/x.yaml"), std::string(KSWEEP_SOURCE_DIR) + "/rules/x.yaml");
}

} // namespace
