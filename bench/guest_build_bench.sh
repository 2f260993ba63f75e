#!/usr/bin/env bash
# What L4's guest kernel costs: a cold guest build (tinyconfig + qemu/guest.config at one HZ,
# `make vmlinux modules` with the tree's kbuild) timed through `ksweep guest`, which also boots it
# once; then a warm `ksweep guest` on the cached build (goal for a cold build: 8 min on 2 cores).
# Prints the date, the host's load average and CPUs beside the figures: on a shared machine the
# wall time says more about the neighbours than about the build, the CPU time does not.
#
# usage: bench/guest_build_bench.sh [KSWEEP_BINARY]
#   TREE=DIR   the tree (default $KSWEEP_TREE_6_12)     HZ=N   its guest's HZ (default 250)
#   WORK=DIR   a cache of its own (default: a temporary one): nothing of ~/.cache/ksweep is used
#              but its env file, so the build is cold. CCACHE_DISABLE=1 makes it cold for ccache
#              too (ksweep builds guests through ccache when it is installed).
#   WARM_ONLY=1 one warm pass on ksweep's own cache (the smoke test: the guest that tree's tests
#              built, or one built now), no cold build.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
ksweep=${1:-$here/build/src/cli/ksweep}
cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}
[ -x "$ksweep" ] || { echo "no ksweep binary at $ksweep (make build first)" >&2; exit 2; }
# shellcheck disable=SC1091
. "$cache/env"
tree=${TREE:-$KSWEEP_TREE_6_12}
hz=${HZ:-250}

work=${WORK:-$(mktemp -d)}; mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
passes="cold warm"
guest_cache=$work
if [ "${WARM_ONLY:-0}" = 1 ]; then
    passes=warm
    guest_cache=$cache
else
    cp "$cache/env" "$work/env"
fi

echo "date $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${CCACHE_DISABLE:-}" ]; then ccache=disabled; else ccache="on if installed"; fi
echo "tree $tree, HZ=$hz, ccache $ccache"
for pass in $passes; do
    start=$(date +%s.%N)
    KSWEEP_CACHE=$guest_cache /usr/bin/time -f '%U %S' -o "$work/cpu.$pass" \
        "$ksweep" guest --tree "$tree" --guest-hz "$hz" -n 10 >"$work/guest.$pass" 2>"$work/err.$pass" ||
        { cat "$work/err.$pass" "$work/guest.$pass" >&2; exit 1; }
    end=$(date +%s.%N)
    read -r user sys <"$work/cpu.$pass"
    # make's children count too: /usr/bin/time reports the whole process tree's CPU time.
    printf '%-5s guest build + 1 boot: %6.0f s wall, %6.0f s CPU (load now %s)\n' "$pass" \
        "$(echo "$end - $start" | bc)" "$(echo "$user + $sys" | bc)" "$(cut -d' ' -f1 /proc/loadavg)"
done
grep -E '^(kernel|extends|result) ' "$work/guest.warm"
