#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy over our C++ sources, through the compile commands
# of a configured build (the ctest test `lint.tidy`):
#
#   scripts/lint/tidy.sh BUILD_DIR [FILE...]
#
# Without FILEs it checks what a branch changed: the .cpp files of src/ and tests/ that differ
# from the merge base with ${KSWEEP_TIDY_BASE:-main}, and the .cpp beside each changed header.
# Under CI (CI set, as .ci/run is run: a clone of main has no branch to diff) or with
# KSWEEP_TIDY_ALL=1, or in a checkout with no such base, it checks every .cpp of src/. Runs -j${JOBS:-2} (run-clang-tidy); any finding fails, since
# .clang-tidy makes every enabled check an error.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: tidy.sh BUILD_DIR [FILE...]}" && pwd)
shift
[ -f "$build/compile_commands.json" ] || { echo "tidy.sh: no $build/compile_commands.json" >&2; exit 2; }

files=("$@")
if [ ${#files[@]} -eq 0 ]; then
    base=${KSWEEP_TIDY_BASE:-main}
    if [ "${KSWEEP_TIDY_ALL:-0}" != 1 ] && [ -z "${CI:-}" ] &&
        merge_base=$(git -C "$here" merge-base HEAD "$base" 2>/dev/null); then
        # Committed and uncommitted changes since the merge base, as paths under the checkout.
        mapfile -t changed < <(git -C "$here" diff --name-only --diff-filter=d "$merge_base" -- src tests |
            grep -v '^tests/fixtures/' | sed -E 's/\.h$/.cpp/' | grep '\.cpp$' | sort -u)
        for f in "${changed[@]}"; do
            [ -f "$here/$f" ] && files+=("$here/$f")
        done
        echo "tidy.sh: ${#files[@]} changed translation units since $base (${merge_base:0:12})" >&2
        [ ${#files[@]} -gt 0 ] || exit 0
    else
        # Everything of src/ (CI, or KSWEEP_TIDY_ALL=1): 3 min 50 s wall on 2 idle cores. The tests
        # stay out of the whole run: clang 14 cannot parse llvm/Support/JSON.h against GCC 12's
        # libstdc++ (incomplete llvm::json::Value), which several tests still include.
        files=("$here/src/.*\.cpp$") # the regex run-clang-tidy matches entries against
    fi
fi
# -Wno-error: a build configured with KSWEEP_WERROR=ON (CI) has -Werror in its compile
# commands, which would turn clang's own compiler warnings into tidy errors; warnings are the
# compiler's to report (the build is warning-free with GCC), tidy reports its checks.
exec "${RUN_CLANG_TIDY:-run-clang-tidy-14}" -quiet -p "$build" -j "${JOBS:-2}" -extra-arg=-Wno-error \
    -clang-tidy-binary "${CLANG_TIDY:-clang-tidy-14}" "${files[@]}"
