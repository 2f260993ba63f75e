#!/usr/bin/env bash
# `ksweep series` over a whole tree (or PATHs of it): wall time and peak memory
# (/usr/bin/time -v), where the time went (ksweep's per-stage line: scan, fix, repository,
# commits and mails, packing), what the loop policy did with count-ended loops, series, patches,
# sites and what was left alone (from index.json), and the scratch repository after the run
# (git count-objects: loose objects, packs; branches).
#
# usage: bench/series_sweep.sh KSWEEP_BINARY OUT_DIR [PATH...]
#        Env: KSWEEP_TREE_6_1 (default from ~/.cache/ksweep/env), JOBS (2).
set -euo pipefail

if [ $# -lt 2 ]; then
    echo "usage: $0 KSWEEP_BINARY OUT_DIR [PATH...]" >&2
    exit 2
fi
ksweep=$(realpath "$1")
out=$2
shift 2
if [ -z "${KSWEEP_TREE_6_1:-}" ]; then
    # shellcheck disable=SC1090
    . "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
fi
if [ -e "$out" ]; then
    echo "$out exists: a sweep there would be a re-run; give a new folder" >&2
    exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT

scratch_state() { # objects, KiB, branches of the tree's scratch repository (if there is one)
    local repo
    repo=$(grep -o '/[^ ]*/scratch/[^ ]*' "$log" 2>/dev/null | head -1 || true)
    [ -n "$repo" ] || return 0
    git --git-dir="$repo" count-objects -v | awk '/^count:/ {c=$2} /^size:/ {s=$2}
        /^packs:/ {p=$2} /^size-pack:/ {sp=$2}
        END {printf "%s loose objects (%s KiB), %s packs (%.1f MiB)", c, s, p, sp / 1024}'
    printf ', %s branches, %s on disk (%s)\n' "$(git --git-dir="$repo" branch | wc -l)" \
        "$(du -sh "$repo" | cut -f1)" "$repo"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -v "$ksweep" series -j "${JOBS:-2}" --signoff 'Bench <bench@example.org>' \
    -o "$out" "$KSWEEP_TREE_6_1" "$@" > "$log" 2> "$log.err" || { cat "$log.err" >&2; exit 1; }
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E 'Elapsed|Maximum resident|User time|System time|ksweep series: time:|loops that give up' "$log.err"
grep -m1 '"totals"' "$out/index.json"
echo "scratch repository after the run: $(scratch_state)"
rm -f "$log.err"
