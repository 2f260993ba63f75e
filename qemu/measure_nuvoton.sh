#!/usr/bin/env bash
# Per-extend times of tpm_i2c_nuvoton in the QEMU guest, two variants: Debian's unmodified 6.1
# driver (usleep_range, since upstream a233a0289cf9) and the same file turned back into its
# pre-v4.12 msleep() form by tests/historical/nuvoton_pre_v4_12.sh. One boot per variant and
# run; prints a markdown table of `ksweep guest`'s summaries.
#
# usage: qemu/measure_nuvoton.sh [N [RUNS [PROFILE]]]   (default 200 extends, 1 run)
#        KSWEEP=path/to/ksweep (default build/src/cli/ksweep)
# Timing under TCG follows host load: note `uptime` with the numbers.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
ksweep=${KSWEEP:-$here/build/src/cli/ksweep}
n=${1:-200} runs=${2:-1} profile=${3:-}
# shellcheck disable=SC1091
source "${KSWEEP_CACHE:-$HOME/.cache/ksweep}/env"
[ -x "$ksweep" ] || { echo "$0: no ksweep binary at $ksweep (build first)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
baseline=$KSWEEP_TREE_6_1/drivers/char/tpm/tpm_i2c_nuvoton.c
historical=$work/historical/tpm_i2c_nuvoton.c
mkdir -p "$work/historical"
"$here/tests/historical/nuvoton_pre_v4_12.sh" "$baseline" "$historical"

echo "load before: $(uptime)"
echo
echo "| variant | run | n | median (ms) | min (ms) | max (ms) | p95 (ms) | total (s) | device timing violations |"
echo "|---|---|---|---|---|---|---|---|---|"
for run in $(seq 1 "$runs"); do
    for variant in baseline historical; do
        src=$baseline
        [ "$variant" = historical ] && src=$historical
        args=(guest -n "$n" --driver-src "$src" --driver-src-dir "$(dirname "$baseline")")
        [ -n "$profile" ] && args+=(--profile "$profile")
        if ! out=$("$ksweep" "${args[@]}" 2>/dev/null); then
            echo "| $variant | $run | failed: $(grep -m1 '^result' <<<"$out") |"
            continue
        fi
        # "extends   n=200  median 1234.5 us  min ... us  max ... us  p95 ... us  total ... ms"
        # "device    12 timing violations, ..."
        violations=$(awk '/^device/ { print $2 }' <<<"$out")
        awk -v v="$variant" -v r="$run" -v viol="${violations:-?}" '/^extends/ {
            for (i = 1; i <= NF; i++) f[$i] = $(i + 1)
            sub("n=", "", $2)
            printf "| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s |\n", v, r, $2,
                f["median"] / 1000, f["min"] / 1000, f["max"] / 1000, f["p95"] / 1000,
                f["total"] / 1000, viol
        }' <<<"$out"
    done
done
echo
echo "load after: $(uptime)"
