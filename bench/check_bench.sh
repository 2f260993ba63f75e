#!/usr/bin/env bash
# How long `ksweep check` takes on a typical single-driver patch against Debian's 6.1 tree,
# beside checkpatch.pl on the same patch. The patch adds msleep(3) and msleep(TPM_TIMEOUT) to
# drivers/char/tpm/tpm_i2c_nuvoton.c (the enum needs the semantic engine and the Debian
# headers: the slow path). The budget is 2 s wall per check.
#
# usage: bench/check_bench.sh KSWEEP_BINARY [RUNS]   (default 5 runs)
#        Env: KSWEEP_TREE_6_1 (default from ~/.cache/ksweep/env).
set -euo pipefail

if [ $# -lt 1 ]; then
    echo "usage: $0 KSWEEP_BINARY [RUNS]" >&2
    exit 2
fi
ksweep=$(realpath "$1")
runs=${2:-5}
if [ -z "${KSWEEP_TREE_6_1:-}" ]; then
    # shellcheck disable=SC1090
    . "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
fi
tree=$KSWEEP_TREE_6_1
driver=drivers/char/tpm/tpm_i2c_nuvoton.c

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/a/${driver%/*}" "$work/b/${driver%/*}"
cp "$tree/$driver" "$work/a/$driver"
# Two calls after the declarations of i2c_nuvoton_write_status().
awk '{ print } /^static s32 i2c_nuvoton_write_status/ { f = 1 }
     f && /^\tint i;$/ { print ""; print "\tmsleep(3);"; print "\tmsleep(TPM_TIMEOUT);"; f = 0 }' \
    "$tree/$driver" > "$work/b/$driver"
{
    printf 'From: A Developer <dev@example.com>\nSubject: [PATCH] tpm: wait before status writes\n\n'
    printf 'The chip needs time.\n\nSigned-off-by: A Developer <dev@example.com>\n---\n'
    (cd "$work" && git diff --no-index --no-prefix "a/$driver" "b/$driver" || true)
} > "$work/p.patch"

# Prints "WALL_MS CPU_MS" of "$@"; its output goes to $work/out, its status is ignored. On
# the shared 2-core machines wall time follows the load; CPU time is the tool's own cost.
time_ms() {
    local start end
    start=$(date +%s%N)
    /usr/bin/time -o "$work/time" -f '%U %S' "$@" > "$work/out" 2>&1 || true
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) $(tail -1 "$work/time" | awk '{ printf "%d", ($1 + $2) * 1000 }')"
}

median() { sort -n | sed -n "$(( (runs + 1) / 2 ))p"; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $runs runs"
printf '%-12s %8s %8s %8s %10s  %s\n' TOOL MIN_MS MEDIAN_MS MAX_MS CPU_MED_MS WARNINGS
for tool in ksweep ksweep-lex checkpatch; do
    samples=()
    for _ in $(seq "$runs"); do
        case $tool in
        ksweep) samples+=("$(time_ms "$ksweep" check --tree "$tree" --terse "$work/p.patch")") ;;
        ksweep-lex) samples+=("$(time_ms "$ksweep" check --lexical-only --tree "$tree" --terse \
                                 "$work/p.patch")") ;;
        checkpatch) samples+=("$(time_ms "$tree/scripts/checkpatch.pl" --root="$tree" --terse \
                                 "$work/p.patch")") ;;
        esac
    done
    walls=$(printf '%s\n' "${samples[@]}" | cut -d' ' -f1 | sort -n)
    cpu=$(printf '%s\n' "${samples[@]}" | cut -d' ' -f2 | median)
    warnings=$(grep -c 'WARNING' "$work/out" || true)
    printf '%-12s %8s %8s %8s %10s  %s\n' "$tool" "$(echo "$walls" | head -1)" \
        "$(echo "$walls" | median)" "$(echo "$walls" | tail -1)" "$cpu" "$warnings"
done
echo
echo "ksweep's last output:"
"$ksweep" check --tree "$tree" --terse "$work/p.patch" || true
