// make test runs scripts/setup.sh before any test, so a missing kernel tree, headers or tool is
// a broken setup. Under CI (CI=true, as .ci/run is run) that fails the test; a developer running
// one test binary by hand without the setup gets a skip that says what is missing.
#pragma once

#include <cstdlib>
#include <gtest/gtest.h>

// NOLINTBEGIN(bugprone-macro-parentheses): the message is streamed, as gtest's own macros do.
#define KSWEEP_SKIP_OR_FAIL(message)                                                               \
    do {                                                                                           \
        if (std::getenv("CI"))                                                                     \
            FAIL() << message;                                                                     \
        else                                                                                       \
            GTEST_SKIP() << message;                                                               \
    } while (0)
// NOLINTEND(bugprone-macro-parentheses)
