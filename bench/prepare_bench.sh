#!/usr/bin/env bash
# The cost of a tree's own build dir, made by ksweep: a cold prepare (the tree's kbuild,
# `make O=<cache> allmodconfig modules_prepare`) into a fresh cache, then the same command warm,
# side by side with the kernel's own `make O=DIR allmodconfig prepare` done by hand, and what
# the semantic engine resolves with it. Prints date, load and the table rows for bench/README.md.
#
#   bench/prepare_bench.sh [KSWEEP] [TREE]    (defaults: build/src/cli/ksweep, the 6.12 tree)
set -euo pipefail
ksweep=${1:-build/src/cli/ksweep}
. "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
tree=${2:-$KSWEEP_TREE_6_12}
work=$(mktemp -d /tmp/ksweep-prepare-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT

seconds() { # label command...: wall seconds of one run, its output in $work/<label>.out
    local label=$1 start end
    shift
    start=$(date +%s.%N)
    "$@" > "$work/$label.out" 2> "$work/$label.err" || { cat "$work/$label.err" >&2; return 1; }
    end=$(date +%s.%N)
    printf "%.1f\n" "$(echo "$end - $start" | bc)"
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'), load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
echo "tree: $tree"
cold=$(KSWEEP_CACHE="$work/cache" seconds cold "$ksweep" scan --format json "$tree" drivers/char/tpm)
grep -o '"build": "[^"]*"' "$work/cold.out" || true
warm=$(KSWEEP_CACHE="$work/cache" seconds warm "$ksweep" scan --format json "$tree" drivers/char/tpm)
by_hand=$(seconds by-hand make -s -C "$tree" O="$work/by-hand" -j"$(nproc)" allmodconfig prepare)
resolved=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(sum(1 for f in r["findings"] if f["engine"]=="semantic"), r["summary"]["files_fallback"])' "$work/warm.out")
echo "| ksweep scan drivers/char/tpm, cold (prepares) | $cold s |"
echo "| ksweep scan drivers/char/tpm, warm (cached)   | $warm s |"
echo "| make O=DIR allmodconfig prepare, by hand      | $by_hand s |"
echo "semantic findings, files fallen back (warm run): $resolved"
