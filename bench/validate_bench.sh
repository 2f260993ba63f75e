#!/usr/bin/env bash
# How long `ksweep validate` takes for one patch through all four levels: the historical
# Nuvoton patch (tpm_i2c_nuvoton.c back in its pre-v4.12 msleep form, fixed by ksweep series),
# L1 git am, L2 checkpatch.pl, L3 module builds, L4 2+2 QEMU boots. Prints the time per level
# and the total wall time (goal: under 2 minutes on 2 cores).
#
# usage: bench/validate_bench.sh [KSWEEP_BINARY]
#   EXTENDS=N   extends per boot (default 50)     BOOTS=N   boots per variant (default 2)
#   LEVELS=1,2,3  the levels to run (default 1,2,3,4; the smoke test leaves L4's boots out)
#   COLD=1      empty ksweep's module build caches first (L3/L4 builds are content-cached)
#   WORK=DIR    work in DIR and keep it (the report is DIR/report)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
ksweep=${1:-$here/build/src/cli/ksweep}
extends=${EXTENDS:-50}
boots=${BOOTS:-2}
cache=${KSWEEP_CACHE:-$HOME/.cache/ksweep}
[ -x "$ksweep" ] || { echo "no ksweep binary at $ksweep (make build first)" >&2; exit 2; }
# shellcheck disable=SC1091
. "$cache/env"

work=${WORK:-$(mktemp -d)}; mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT

# The historical series, made the way tests/integration/validate_test.cpp makes it.
scratch=$("$ksweep" series --rule msleep_small --signoff "Bench <bench@example.org>" \
          -o "$work/unused" "$KSWEEP_TREE_6_1" \
          drivers/char/tpm 2>/dev/null | sed -n '/commits are in the scratch repository/{n;p;q}')
base=$(git --git-dir="$scratch" for-each-ref --format='%(objectname)' refs/ksweep/base/)
"$here/scripts/scratch-checkout.sh" "$scratch" "$KSWEEP_TREE_6_1" "$base" "$work/linux" \
    drivers/char/tpm
git -C "$work/linux" config user.name bench
git -C "$work/linux" config user.email bench@example.org
git -C "$work/linux" checkout -q -b historical
f=$work/linux/drivers/char/tpm/tpm_i2c_nuvoton.c
bash "$here/tests/historical/nuvoton_pre_v4_12.sh" "$f" "$f"
git -C "$work/linux" commit -q -am "tpm: tpm_i2c_nuvoton: back to msleep() as before v4.12"
"$ksweep" series --rule msleep_small -o "$work/sweep" "$work/linux" \
    drivers/char/tpm/tpm_i2c_nuvoton.c >/dev/null 2>&1
# The sweep holds one folder per series: this one's mails are one folder down.
series=$(dirname "$(ls "$work"/sweep/*/*.patch | head -1)")

if [ "${COLD:-0}" = 1 ]; then
    rm -rf "$cache/validate-builds" "$cache/modules" "$cache/initramfs"
fi

levels=${LEVELS:-1,2,3,4}
echo "ksweep validate: 1 patch, levels $levels, $boots boots per variant, $extends extends per boot"
start=$(date +%s.%N)
status=0
"$ksweep" validate --series "$series" --levels "$levels" -n "$extends" --boots "$boots" \
    --guest-tree "$KSWEEP_TREE_6_1" \
    -o "$work/report" "$work/linux" >"$work/validate.out" 2>"$work/validate.err" || status=$?
end=$(date +%s.%N)

python3 - "$work/report/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
p = r["patches"][0]
for level in ("L1", "L2", "L3", "L4"):
    l = p["levels"].get(level)
    if not l:
        continue
    print(f"  {level}  {l['seconds']:7.1f} s  {l['status']:<14} {l['message'][:90]}")
for d in p.get("devices", []):
    for b in d["boots"]:
        print(f"      boot {b['variant']:<8} {b['boot']}  {b['wall_seconds']:6.1f} s")
PY
printf '  total %7.1f s wall (exit status %d)\n' "$(echo "$end - $start" | bc)" "$status"
