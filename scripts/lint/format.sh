#!/usr/bin/env bash
# clang-format over our C++ (src/ and tests/; the kernel-style C fixtures are not ours to
# reformat). `format.sh` rewrites the files (make format); `format.sh --check` changes nothing
# and fails on the first file that is not formatted (the ctest test `lint.format`).
set -euo pipefail
cd "$(dirname "$0")/../.."
clang_format=${CLANG_FORMAT:-clang-format-14}
mapfile -t files < <(find src tests -path tests/fixtures -prune -o \( -name '*.h' -o -name '*.cpp' \) -print | sort)
if [ "${1:-}" = --check ]; then
    exec "$clang_format" --dry-run -Werror "${files[@]}"
fi
exec "$clang_format" -i "${files[@]}"
