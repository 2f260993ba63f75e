#!/usr/bin/env bash
# `ksweep fix` over directories of Debian's 6.1 tree, checked the way a maintainer would:
#   - the diff applies (git apply) to a copy of those directories;
#   - every edited file still compiles against Debian's 6.1 headers where its driver is enabled
#     in Debian's config (make -C $KSWEEP_HEADERS M=<dir> <file>.o); others are reported
#     "not in config";
#   - scripts/checkpatch.pl --strict from the tree finds nothing in the diff;
#   - a second `ksweep fix` on the fixed copy changes nothing.
#
# usage: fix_tree_check.sh KSWEEP_BINARY SUBDIR...     e.g. ... build/src/cli/ksweep drivers/char/tpm
# Env: KSWEEP_TREE_6_1, KSWEEP_HEADERS (default: ~/.cache/ksweep/env from scripts/setup.sh),
#      JOBS (default 2), KEEP=1 keeps the work dir. Exit 0 when every check holds.
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 KSWEEP_BINARY SUBDIR..." >&2
    exit 2
fi
ksweep=$(realpath "$1")
shift
if [ -z "${KSWEEP_TREE_6_1:-}" ] || [ -z "${KSWEEP_HEADERS:-}" ]; then
    # shellcheck disable=SC1090
    . "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
fi
src=$KSWEEP_TREE_6_1
headers=$KSWEEP_HEADERS
jobs=${JOBS:-2}
here=$(dirname "$(realpath "$0")")

work=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
tree=$work/tree

# A copy of only what the fix reads: the top Makefile (the version) and the directories.
mkdir -p "$tree"
cp "$src/Makefile" "$tree/"
for d in "$@"; do
    mkdir -p "$tree/$(dirname "$d")"
    cp -a "$src/$d" "$tree/$d"
done
git -C "$tree" init -q
git -C "$tree" add -f .
git -C "$tree" -c user.name=ksweep -c user.email=ksweep@invalid commit -q -m base

start=$(date +%s)
"$ksweep" fix -j "$jobs" "$tree" "$@" > "$work/fix.diff" 2> "$work/fix.log"
fix_seconds=$(( $(date +%s) - start ))
git -C "$tree" apply "$work/fix.diff"
mapfile -t edited < <(git -C "$tree" diff --name-only)
sites=$(grep -c '^-.*\bmsleep(' "$work/fix.diff" || true)
left=$(grep -c '^  left alone' "$work/fix.log" || true)

built=0 failed=0 not_in_config=0 unknown=0
: > "$work/builds.txt"
for f in "${edited[@]}"; do
    case "$f" in *.c) ;; *) echo "$f: header, compiled with its users" >> "$work/builds.txt"; continue ;; esac
    state=$("$here/fix_kbuild_config.py" "$headers/.config" "$tree/$f")
    if [ "$state" = n ]; then
        not_in_config=$((not_in_config + 1))
        echo "$f: not in config" >> "$work/builds.txt"
        continue
    fi
    [ "$state" = "?" ] && unknown=$((unknown + 1))
    dir=$(dirname "$tree/$f")
    obj=$(basename "$f" .c).o
    if make -s -j "$jobs" -C "$headers" M="$dir" "$obj" > "$work/build.log" 2>&1; then
        built=$((built + 1))
        echo "$f: built ($state)" >> "$work/builds.txt"
    else
        failed=$((failed + 1))
        echo "$f: BUILD FAILED ($state)" >> "$work/builds.txt"
        sed 's/^/    /' "$work/build.log" | head -20 >> "$work/builds.txt"
    fi
done

# checkpatch.pl only looks at the lines a patch adds: anything it says is new.
"$src/scripts/checkpatch.pl" --strict --no-tree --terse --no-summary --show-types \
    "$work/fix.diff" > "$work/checkpatch.txt" 2>&1 || true
checkpatch=$(grep -c ': \(WARNING\|ERROR\|CHECK\)' "$work/checkpatch.txt" || true)

"$ksweep" fix -j "$jobs" "$tree" "$@" > "$work/again.diff" 2> "$work/again.log"
again=$(wc -l < "$work/again.diff")

cat "$work/builds.txt"
[ "$checkpatch" = 0 ] || cat "$work/checkpatch.txt"
tail -n +1 "$work/fix.log" | grep -v '^  left alone' || true
echo "summary: dirs=$* files_edited=${#edited[@]} sites_fixed=$sites left_alone=$left" \
     "built=$built build_failed=$failed not_in_config=$not_in_config config_unknown=$unknown" \
     "checkpatch_messages=$checkpatch second_fix_diff_lines=$again fix_seconds=$fix_seconds"
[ "$failed" = 0 ] && [ "$checkpatch" = 0 ] && [ "$again" = 0 ] && [ "${#edited[@]}" -gt 0 ]
