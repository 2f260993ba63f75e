#!/usr/bin/env bash
# The cr50 patch's L4 matrix (docs/cr50.md): on each tree, `ksweep series` writes the patch of
# drivers/char/tpm/tpm_tis_i2c_cr50.c as it does for today's trees (tpm_msleep(), the tree's own
# helper), and `ksweep validate` boots it at each HZ with and without the chip's interrupt line
# (--interrupt wired,none): a row per (tree, HZ, wiring) with the baseline and patched medians,
# their ratio and interval, the PCR checks and the device's violations. Each HZ of each tree is
# its own guest kernel build (minutes each on 2 cores, cached once built).
#
# usage: bench/cr50_matrix.sh [KSWEEP_BINARY]
#   TREES="6.1 6.12"        which of the setup's trees       HZ=250,1000     guest kernels' HZ
#   INTERRUPTS=wired,none   wirings of the interrupt line    PROFILE=FILE    device profile
#   EXTENDS=N               extends per boot (default 100: a boot without the line takes about
#                           0.3 s per extend, 20 ms per register access)
#   BOOTS=N                 boots per variant (default 2)    WORK=DIR        keep everything there
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
ksweep=${1:-$here/build/src/cli/ksweep}
extends=${EXTENDS:-100}
boots=${BOOTS:-2}
hz=${HZ:-250,1000}
interrupts=${INTERRUPTS:-wired,none}
cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}
[ -x "$ksweep" ] || { echo "no ksweep binary at $ksweep (make build first)" >&2; exit 2; }
# shellcheck disable=SC1091
. "$cache/env"

work=${WORK:-$(mktemp -d)}; mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT

status=0
reports=()
for version in ${TREES:-6.1 6.12}; do
    var=KSWEEP_TREE_${version//./_}
    tree=${!var:-}
    [ -d "$tree" ] || { echo "no $var in $cache/env (scripts/setup.sh)" >&2; exit 2; }
    "$ksweep" series -o "$work/series-$version" "$tree" drivers/char/tpm/tpm_tis_i2c_cr50.c \
        >"$work/series-$version.out" 2>&1
    series=$(dirname "$(find "$work/series-$version" -name '0001-*.patch' | head -1)")
    [ -d "$series" ] || { echo "no patch written for $version:" >&2; cat "$work/series-$version.out" >&2; exit 1; }
    echo "Linux $version: validate --guest-hz $hz --interrupt $interrupts, $boots+$boots boots of" \
         "$extends extends (load $(cut -d' ' -f1-3 /proc/loadavg))"
    start=$(date +%s)
    "$ksweep" validate --series "$series" --guest-hz "$hz" --interrupt "$interrupts" \
        -n "$extends" --boots "$boots" ${PROFILE:+--profile "$PROFILE"} \
        --work-dir "$work/validate-$version" -o "$work/report-$version" "$tree" \
        >"$work/validate-$version.out" 2>"$work/validate-$version.err" || status=$?
    echo "  $(( $(date +%s) - start )) s wall, exit status $status"
    reports+=("$work/report-$version/report.json")
done

python3 - "${reports[@]}" <<'PY'
import json, sys
print(f"{'tree':<9} {'HZ':>4} {'IRQ':<5} {'baseline':>10} {'patched':>10} {'ratio':>6}  "
      f"{'95 % CI':<11} {'PCR':<6} violations  L4")
for path in sys.argv[1:]:
    r = json.load(open(path))
    for p in r["patches"]:
        level = p["levels"]["L4"]
        for d in p["devices"]:
            v = d["variants"]
            pcr = "passed" if all(b["pcr_passed"] for b in d["boots"]) else "FAILED"
            broken = {k: n for side in ("baseline", "patched")
                      for k, n in v[side]["violations"].items() if n}
            ci = (f"{d['median_ratio_low']:.2f}-{d['median_ratio_high']:.2f}"
                  if d["median_ratio_high"] else "-")
            print(f"{d['guest_release']:<9} {d['hz']:>4} {d['interrupt'] or '-':<5} "
                  f"{v['baseline']['median_us'] / 1000:>8.2f}ms {v['patched']['median_us'] / 1000:>8.2f}ms "
                  f"{d['median_ratio']:>5.2f}x  {ci:<11} {pcr:<6} {broken or 'none'}  "
                  f"{level['status']}")
PY
exit "$status"
