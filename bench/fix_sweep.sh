#!/usr/bin/env bash
# How long `ksweep fix` takes over parts of Debian's 6.1 tree (diff mode: the tree is only
# read), and what it does there: files, sites fixed, sites left alone.
#
# usage: bench/fix_sweep.sh KSWEEP_BINARY [SUBDIR...]   (default: drivers/char/tpm drivers/iio
#        drivers/input)   Env: KSWEEP_TREE_6_1 (default from ~/.cache/ksweep/env), JOBS (2).
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 KSWEEP_BINARY [SUBDIR...]" >&2
    exit 2
fi
ksweep=$(realpath "$1")
shift
[ $# -gt 0 ] || set -- drivers/char/tpm drivers/iio drivers/input
if [ -z "${KSWEEP_TREE_6_1:-}" ]; then
    # shellcheck disable=SC1090
    . "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
fi
jobs=${JOBS:-2}
out=$(mktemp)
trap 'rm -f "$out" "$out.log" "$out.time"' EXIT

printf '%-20s %8s %8s %8s %10s %10s\n' SUBDIR FILES FIXED LEFT WALL_S CPU_S
for d in "$@"; do
    start=$(date +%s.%N)
    /usr/bin/time -o "$out.time" -f '%U %S' "$ksweep" fix -j "$jobs" "$KSWEEP_TREE_6_1" "$d" \
        > "$out" 2> "$out.log"
    cpu=$(awk '{print $1 + $2}' "$out.time")
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    summary=$(grep '^ksweep fix:' "$out.log")
    files=$(grep -c '^diff --git' "$out" || true)
    fixed=$(echo "$summary" | sed -E 's/^ksweep fix: ([0-9]+) site.*/\1/')
    left=$(echo "$summary" | sed -E 's/.*; ([0-9]+) left alone.*/\1/')
    printf '%-20s %8s %8s %8s %10.1f %10s\n' "$d" "$files" "$fixed" "$left" "$wall" "$cpu"
done
