#!/usr/bin/env bash
# A second worktree of the same commit costs nothing again: ksweep's caches are keyed by content
# (src/git/tree_content.h), never by a checkout's path or name. This makes a git repository of
# TREE (every file, committed once, the tree only read), two worktrees of that commit, and times
# in each `ksweep scan drivers/char/tpm` (which needs the prepared build dir) and `ksweep guest
# --hz HZ -n 1` (which needs the guest kernel), saying for each whether it prepared or built
# anything. Prints date, load and CPUs beside the figures.
#
# usage: bench/worktree_bench.sh [KSWEEP_BINARY]
#   TREE=DIR   (default $KSWEEP_TREE_6_12)     HZ=N   the guest's HZ (default 250)
#   COLD=1     a cache of its own, empty (but the env file): the first worktree prepares and
#              builds, the second must not; default: ksweep's cache, whose entries the tree's
#              own earlier runs made serve both worktrees (same content)
#   NO_GUEST=1 the scans only (the smoke test's small tree has no kernel to boot)
#   WORK=DIR   keep the repository and worktrees there (default: a temporary directory)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
ksweep=${1:-$here/build/src/cli/ksweep}
cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}
[ -x "$ksweep" ] || { echo "no ksweep binary at $ksweep (make build first)" >&2; exit 2; }
if [ -z "${TREE:-}" ]; then
    # shellcheck disable=SC1091
    . "$cache/env"
fi
tree=${TREE:-$KSWEEP_TREE_6_12}
hz=${HZ:-250}
work=${WORK:-$(mktemp -d)}; mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
if [ "${COLD:-0}" = 1 ]; then
    mkdir -p "$work/cache"
    [ ! -f "$cache/env" ] || cp "$cache/env" "$work/cache/env"
    cache=$work/cache
fi

echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tree $tree, HZ=$hz, cache $cache"
if [ ! -d "$work/repo/.git" ]; then
    git init -q "$work/repo"
    # Every file, those the tree's .gitignore names too (Debian's ignores everything); the tree
    # itself is only read: the index and objects are the repository's.
    git --git-dir="$work/repo/.git" --work-tree="$tree" add -f -A .
    git --git-dir="$work/repo/.git" -c user.name=bench -c user.email=bench@example.org \
        commit -q -m "the tree"
fi
for wt in wt1 wt2; do
    [ -d "$work/$wt" ] || git -C "$work/repo" worktree add -q --detach "$work/$wt" HEAD
done
echo "commit $(git -C "$work/repo" rev-parse --short HEAD), worktrees $work/wt1 and $work/wt2"

seconds() { # seconds LOG COMMAND...: wall seconds; stdout and stderr in LOG
    local log=$1 start
    shift
    start=$(date +%s.%N)
    KSWEEP_CACHE=$cache "$@" > "$log" 2>&1 || { cat "$log" >&2; return 1; }
    printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc)"
}

for wt in wt1 wt2; do
    s=$(seconds "$work/$wt.scan" "$ksweep" scan "$work/$wt" drivers/char/tpm)
    if grep -q 'preparing a build dir' "$work/$wt.scan"; then what="prepared the build dir";
    else what="no prepare: $(grep -o 'build dir [^ ]*' "$work/$wt.scan" | head -1)"; fi
    printf '%s: scan drivers/char/tpm %7s s  (%s)\n' "$wt" "$s" "$what"
    [ "${NO_GUEST:-0}" = 1 ] && continue
    s=$(seconds "$work/$wt.guest" "$ksweep" guest --tree "$work/$wt" --hz "$hz" -n 1)
    if grep -q 'building the guest kernel' "$work/$wt.guest"; then what="built the guest kernel";
    else what="no guest build"; fi
    printf '%s: guest --hz %s -n 1 %6s s  (%s)\n' "$wt" "$hz" "$s" "$what"
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
